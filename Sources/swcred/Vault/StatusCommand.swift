import ArgumentParser
import Foundation
import SharedWebCredentials
import SwcredHardening

/// `swcred status`: describes a vault.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the vault's path, format, key protection and record counts.",
        discussion: """
            Needs no passphrase: nothing shown is secret. For a passphrase vault, the Argon2id \
            settings come with the guesses per second one GPU would make against them (see \
            `swcred init --help`). With --verify the vault is unlocked, every credential and \
            never-save marker is authenticated, every registered app and stored verdict has its \
            MAC checked, the set of records is compared with its sealed commitment and the apps, \
            verdicts and app tokens with their sealed set (which shows a row rolled back, put \
            back or deleted behind swcred's back), and the seal that binds those to the key \
            epoch and the audit log's head is checked. If anything fails, what failed is shown \
            and swcred exits 9.
            """)

    @OptionGroup var vault: VaultOptions

    @Flag(help: "Print JSON.")
    var json = false

    @Flag(help: "Unlock the vault and check the integrity of every record, app and verdict.")
    var verify = false

    func run() throws {
        let store = try vault.resolvedStore()
        let path = store.location
        let status = try Vault.inspect(store: store)
        var report: VaultIntegrityReport?
        if verify { report = try vault.openVault().integrityReport() }
        if json {
            TextOutput.json(try jsonText(status, report: report).utf8)
        } else {
            for line in lines(status, report: report) { TextOutput.line(line) }
        }
        if let report, !report.isIntact {
            throw SharedWebCredentialsError(
                .integrityFailure,
                "\(path) failed its integrity check: \(report.problems.joined(separator: "; ")). Restore the vault from a backup."
            )
        }
    }

    /// Whether this process's secrets are locked into RAM (a probe makes one if none was yet).
    private static var memoryLock: (isLocked: Bool, text: String) {
        switch SecretMemory.probe() {
        case .failed(let reason): (false, "NOT locked, secrets may be swapped to disk (\(reason))")
        case .locked, .unused: (true, "locked")
        }
    }

    /// Whether a crash could leave a core file, and why.
    private static var coreDumps: String {
        if ProcessHardening.coreDumpsPossible { return "allowed (\(ProcessHardening.optOutVariable)=1)" }
        return ProcessHardening.isOptedOut ? "off (the core size limit is 0)" : "off"
    }

    private func lines(_ status: VaultStatus, report: VaultIntegrityReport?) -> [String] {
        let protection =
            switch status.protection {
            case .keyFile: "key file"
            case .passphrase(let parameters): "passphrase (\(parameters))"
            }
        var lines = [
            "vault:        \(status.path)",
            "format:       \(status.formatVersion)",
            "protection:   \(protection)",
            "credentials:  \(status.credentialCount)",
            "never-save:   \(status.neverSaveCount)",
        ]
        if case .passphrase(let parameters) = status.protection {
            let rate = ApproximateWording.number(OfflineAttackModel.guessesPerSecond(parameters))
            lines.insert("offline rate: about \(rate) guesses per second (one GPU)", at: 3)
        }
        if let report {
            lines.append("damaged:      \(report.damagedCredentials)")
            let unauthentic = report.unauthenticRows.map { "\($0.table) \($0.count)" }
            lines.append(
                "unauthentic:  \(unauthentic.isEmpty ? "none" : "\(unauthentic.joined(separator: ", ")) row(s) FAIL their MAC")"
            )
            lines.append(
                "record set:   \(report.recordSetMatchesCommitment ? "matches its commitment" : "DOES NOT MATCH its commitment")"
            )
            lines.append(
                "grants:       \(report.grantSetIsAuthentic && report.grantRowsPutBack == 0 && report.grantRowsMissing == 0 ? "match their sealed set" : "DO NOT MATCH their sealed set")"
            )
            lines.append("state seal:   \(report.stateSealMatches ? "intact" : "BROKEN")")
            lines.append(
                "domain index: \(report.parentDomainIndexMatches ? "matches the credentials" : "DOES NOT MATCH the credentials")"
            )
            lines.append("audit log:    \(report.auditLogProblem == nil ? "intact" : "BROKEN (swcred audit verify)")")
            lines.append("integrity:    \(report.isIntact ? "ok" : "FAILED")")
        }
        lines.append("memory lock:  \(Self.memoryLock.text)")
        lines.append("core dumps:   \(Self.coreDumps)")
        return lines
    }

    private struct JSONStatus: Encodable {
        struct KDF: Encodable {
            let algorithm: String
            let opslimit: UInt64
            let memlimit: UInt64
            let guessesPerSecond: Double

            enum CodingKeys: String, CodingKey {
                case algorithm, opslimit, memlimit
                case guessesPerSecond = "guesses_per_second"
            }
        }
        let path: String
        let formatVersion: Int
        let protection: String
        let kdf: KDF?
        let credentials: Int
        let neverSave: Int
        let damaged: Int?
        let memoryLocked: Bool
        let coreDumps: Bool
        let recordSetMatches: Bool?
        let problems: [String]?

        enum CodingKeys: String, CodingKey {
            case path, protection, kdf, credentials, damaged, problems
            case memoryLocked = "memory_locked"
            case coreDumps = "core_dumps"
            case recordSetMatches = "record_set_matches"
            case formatVersion = "format_version"
            case neverSave = "never_save"
        }
    }

    private func jsonText(_ status: VaultStatus, report: VaultIntegrityReport?) throws -> String {
        var kdf: JSONStatus.KDF?
        let protection: String
        switch status.protection {
        case .keyFile:
            protection = "key-file"
        case .passphrase(let parameters):
            protection = "passphrase"
            kdf = JSONStatus.KDF(
                algorithm: "argon2id13", opslimit: parameters.opslimit, memlimit: parameters.memlimit,
                guessesPerSecond: OfflineAttackModel.guessesPerSecond(parameters))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let value = JSONStatus(
            path: status.path, formatVersion: status.formatVersion, protection: protection, kdf: kdf,
            credentials: status.credentialCount, neverSave: status.neverSaveCount, damaged: report?.damagedCredentials,
            memoryLocked: Self.memoryLock.isLocked, coreDumps: ProcessHardening.coreDumpsPossible,
            recordSetMatches: report?.recordSetMatchesCommitment, problems: report?.problems)
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
