import ArgumentParser
import Foundation
import SharedWebCredentials

/// `swcred status`: describes a vault.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the vault's path, format, key protection and record counts.",
        discussion: """
            Needs no passphrase: nothing shown is secret. With --verify the vault is unlocked, \
            every credential and never-save marker is authenticated, every registered app and \
            stored verdict has its MAC checked, and the set of records is compared with its \
            sealed commitment (which shows a record rolled back, brought back or deleted behind \
            swcred's back). If anything fails, what failed is shown and swcred exits 9.
            """)

    @OptionGroup var vault: VaultOptions

    @Flag(help: "Print JSON.")
    var json = false

    @Flag(help: "Unlock the vault and check the integrity of every record, app and verdict.")
    var verify = false

    func run() throws {
        let path = try vault.resolvedPath()
        let status = try Vault.inspect(at: path)
        var report: VaultIntegrityReport?
        if verify { report = try vault.openVault().integrityReport() }
        if json {
            print(try jsonText(status, report: report))
        } else {
            print(text(status, report: report))
        }
        if let report, !report.isIntact {
            throw SharedWebCredentialsError(
                .integrityFailure,
                "\(path) failed its integrity check: \(report.problems.joined(separator: "; ")). Restore the vault from a backup."
            )
        }
    }

    private func text(_ status: VaultStatus, report: VaultIntegrityReport?) -> String {
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
        if let report {
            lines.append("damaged:      \(report.damagedCredentials)")
            lines.append(
                "record set:   \(report.recordSetMatchesCommitment ? "matches its commitment" : "DOES NOT MATCH its commitment")"
            )
            lines.append("integrity:    \(report.isIntact ? "ok" : "FAILED")")
        }
        return lines.joined(separator: "\n")
    }

    private struct JSONStatus: Encodable {
        struct KDF: Encodable {
            let algorithm: String
            let opslimit: UInt64
            let memlimit: UInt64
        }
        let path: String
        let formatVersion: Int
        let protection: String
        let kdf: KDF?
        let credentials: Int
        let neverSave: Int
        let damaged: Int?
        let recordSetMatches: Bool?
        let problems: [String]?

        enum CodingKeys: String, CodingKey {
            case path, protection, kdf, credentials, damaged, problems
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
            kdf = JSONStatus.KDF(algorithm: "argon2id13", opslimit: parameters.opslimit, memlimit: parameters.memlimit)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let value = JSONStatus(
            path: status.path, formatVersion: status.formatVersion, protection: protection, kdf: kdf,
            credentials: status.credentialCount, neverSave: status.neverSaveCount, damaged: report?.damagedCredentials,
            recordSetMatches: report?.recordSetMatchesCommitment, problems: report?.problems)
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
