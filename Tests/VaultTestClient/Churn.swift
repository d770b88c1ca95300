import Foundation
import SharedWebCredentials

/// Adds and updates credentials in a loop until the process is killed, for the crash-safety test.
///
/// Every operation is one transaction of one to three upserts on `stress.example`. Standard
/// output gets, written straight to the pipe (no buffering, one `write` per line):
///
///     ready
///     begin ACCOUNT PASSWORD        (one per upsert, before the transaction starts)
///     commit ACCOUNT PASSWORD       (one per upsert, after the transaction returned)
///
/// so a test that kills this process knows what was committed, and what may or may not have been.
/// Accounts and passwords are test data.
struct Churn {
    let vault: Vault
    let accounts: Int

    func run() throws -> Never {
        emit("ready")
        var sequence = 0
        while true {
            let size = Int.random(in: 1...3)
            let changes = (0..<size).map { _ -> (account: String, password: String) in
                sequence += 1
                return ("user-\(Int.random(in: 0..<accounts))", "pw-\(sequence)-\(UInt64.random(in: 0...UInt64.max))")
            }
            // One account at most once per transaction, so its last value is unambiguous.
            let unique = Dictionary(changes.map { ($0.account, $0.password) }) { first, _ in first }
                .sorted { $0.key < $1.key }
            emit(unique.map { "begin \($0.key) \($0.value)" }.joined(separator: "\n"))
            try vault.credentials.batch { batch in
                for (account, password) in unique {
                    try batch.upsert(server: "stress.example", account: account, password: SecureBytes(utf8: password))
                }
            }
            emit(unique.map { "commit \($0.key) \($0.value)" }.joined(separator: "\n"))
        }
    }

    /// Writes `lines` and a newline with one `write` call, so a kill never splits a line.
    private func emit(_ lines: String) {
        let bytes = Array((lines + "\n").utf8)
        var written = 0
        while written < bytes.count {
            let result = bytes[written...].withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
            guard result > 0 else { exit(1) }
            written += result
        }
    }
}
