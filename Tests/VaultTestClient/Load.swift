import Foundation
import SharedWebCredentials

/// Mixed lookups and upserts against one vault for a fixed time, for `Scripts/load-test`.
///
/// Three lookups (`find`, as a request does) for every upsert (as an add does), on 200 accounts
/// of `stress.example`. Each operation's latency goes to `samplesPath`, one `KIND NANOSECONDS`
/// line per operation (`request`, `add`, or `error-CODE` for a failed one).
struct Load {
    let vault: Vault
    let seconds: Double

    func run(samplesPath: String) throws {
        var lines: [String] = []
        lines.reserveCapacity(100_000)
        let clock = ContinuousClock()
        let deadline = clock.now + .milliseconds(Int(seconds * 1000))
        var operation = 0
        while clock.now < deadline {
            operation += 1
            let account = "user-\(Int.random(in: 0..<200))"
            let isAdd = operation % 4 == 0
            let start = clock.now
            var kind = isAdd ? "add" : "request"
            do {
                if isAdd {
                    try vault.credentials.upsert(
                        server: "stress.example", account: account,
                        password: SecureBytes(utf8: "pw-\(UInt64.random(in: 0...UInt64.max))"))
                } else {
                    _ = try vault.credentials.find(server: "stress.example", account: account)
                }
            } catch let error as SharedWebCredentialsError {
                kind = "error-\(error.code.rawValue)"
            } catch {
                kind = "error-other"
            }
            let elapsed = clock.now - start
            let nanoseconds =
                elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
            lines.append("\(kind) \(nanoseconds)")
        }
        guard
            FileManager.default.createFile(
                atPath: samplesPath, contents: Data(lines.joined(separator: "\n").utf8 + [10]))
        else {
            throw SharedWebCredentialsError(.invalidInput, "Cannot write \(samplesPath).")
        }
    }
}
