import Foundation
import GRDB
import TestSupport
import Testing

@testable import SharedWebCredentials

#if canImport(Glibc)
    import Glibc
#endif

/// Kills a writing process with SIGKILL at random points, many times, and checks that the vault
/// keeps every committed change, never half a transaction, and stays sound and unlockable.
@Suite("Crash safety")
struct CrashSafetyTests {
    typealias Support = VaultTestSupport

    private static let client = SwcredProcess.siblingExecutable(named: "VaultTestClient")
    private static let kills = 30
    private static let accounts = 12

    /// What one killed child reported: the transactions it finished and the one it may have been in.
    struct ChildReport {
        var committed: [(account: String, password: String)] = []
        /// The upserts of the last transaction begun but not reported as committed (all or none
        /// applied). Transactions run one after another, so only the last can be unreported.
        var inFlight: [String: String] = [:]

        init(output: String) {
            for line in output.split(separator: "\n", omittingEmptySubsequences: true) {
                let fields = line.split(separator: " ").map(String.init)
                guard fields.count == 3 else { continue }
                switch fields[0] {
                case "begin":
                    inFlight[fields[1]] = fields[2]
                case "commit":
                    committed.append((fields[1], fields[2]))
                    if inFlight[fields[1]] == fields[2] { inFlight[fields[1]] = nil }
                default: continue
                }
            }
        }
    }

    @Test("30 SIGKILLs mid-write: integrity ok, every reported commit present, no torn transaction")
    func killedWriterLosesNothingCommitted() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.sqlite")
        _ = try Support.makeVault(in: directory)
        var expected: [String: String] = [:]
        var totalCommitted = 0
        for round in 0..<Self.kills {
            let output = try runAndKill(path: path, after: .milliseconds(Int.random(in: 1...120)))
            let report = ChildReport(output: output)
            for (account, password) in report.committed { expected[account] = password }
            totalCommitted += report.committed.count

            let stored = try storedPasswords(path)
            // The unreported transaction applied entirely or not at all.
            let applied = report.inFlight.filter { stored[$0.key] == $0.value }
            #expect(
                applied.isEmpty || applied.count == report.inFlight.count,
                "round \(round): \(applied.count) of \(report.inFlight.count) upserts of one transaction applied")
            for (account, password) in applied { expected[account] = password }
            #expect(stored == expected, "round \(round): the vault differs from what was committed")
            expected = stored
            #expect(try integrityCheck(path) == "ok", "round \(round)")
        }
        #expect(totalCommitted > Self.kills, "the child committed too little to test anything: \(totalCommitted)")
        let vault = try Support.open(path)
        #expect(try vault.credentials.verify() == (checked: expected.count, damaged: 0))
        #expect(try vault.credentials.count() == expected.count)
    }

    /// Starts a churning child, waits until it is writing, sleeps `delay`, kills it with SIGKILL
    /// and returns everything it wrote.
    private func runAndKill(path: String, after delay: Duration) throws -> String {
        let process = Process()
        process.executableURL = Self.client
        process.arguments = ["churn", path, String(Self.accounts)]
        process.environment = ["SWCRED_PASSPHRASE": Support.passphrase, "PATH": "/usr/bin:/bin"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var data = Data()
        // Wait for "ready": the vault is open and the loop is about to start.
        while !data.starts(with: Data("ready\n".utf8)) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            data.append(chunk)
        }
        Thread.sleep(forTimeInterval: Double(delay.components.attoseconds) / 1e18 + Double(delay.components.seconds))
        kill(process.processIdentifier, SIGKILL)
        data.append(output.fileHandleForReading.readDataToEndOfFile())
        process.waitUntilExit()
        #expect(
            process.terminationReason == .uncaughtSignal, "the child exited on its own: \(process.terminationStatus)")
        return String(decoding: data, as: UTF8.self)
    }

    /// Every account's password, read through a fresh unlock (which also recovers the WAL).
    private func storedPasswords(_ path: String) throws -> [String: String] {
        let vault = try Support.open(path)
        var passwords: [String: String] = [:]
        for credential in try vault.credentials.find(server: "stress.example") {
            passwords[credential.account] = credential.passwordText
        }
        return passwords
    }

    private func integrityCheck(_ path: String) throws -> String? {
        try Support.rawDatabase(path).read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") }
    }
}
