import Foundation
import Synchronization

/// The Python tools of `Tests/Passkeys` (`verify_webauthn.py`, `cxf_passkeys.py`), run in the
/// pinned environment Scripts/bootstrap makes (`.build-venv/webauthn`: py_webauthn, python-fido2
/// and pyca/cryptography): one JSON object in on standard input, one JSON object out.
///
/// A missing environment is a failure naming what to run, never a skip: CI runs Scripts/bootstrap
/// first, so a missing one is a broken setup.
public enum PasskeyTools {
    /// The package's root folder.
    public static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let python = root.appendingPathComponent(".build-venv/webauthn/bin/python").path

    /// A tool that could not run, or did not answer with a JSON object.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Runs every check through `verify_webauthn.py` in one process and returns, for each check
    /// in order, each library's verdict: `(py_webauthn, fido2)`, as the script reports them.
    public static func verifyWebAuthn(
        _ checks: [[String: Any]]
    ) throws -> [(
        pyWebAuthn: [String: Any], fido2: [String: Any]
    )] {
        let answer = try run("verify_webauthn.py", input: ["checks": checks])
        guard let verdicts = answer["verdicts"] as? [[String: Any]], verdicts.count == checks.count else {
            throw Failure(
                description: "verify_webauthn.py answered \(answer.count) members without one verdict per check")
        }
        return verdicts.map {
            ($0["py_webauthn"] as? [String: Any] ?? [:], $0["fido2"] as? [String: Any] ?? [:])
        }
    }

    /// Runs `Tests/Passkeys/<script>` with `input` (serialised as JSON) on its standard input and
    /// returns the JSON object it prints; throws with its standard error if it fails.
    public static func run(_ script: String, input: Any) throws -> [String: Any] {
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw Failure(
                description:
                    "the passkey tools' Python is missing (\(python)): run Scripts/bootstrap, which makes .build-venv/webauthn with py_webauthn, python-fido2 and cryptography pinned"
            )
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [root.appendingPathComponent("Tests/Passkeys/\(script)").path]
        let (stdin, stdout, stderr) = (Pipe(), Pipe(), Pipe())
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        // Standard error is drained beside standard output, so that neither pipe fills up and
        // stalls the tool.
        let errors = Drain(stderr.fileHandleForReading)
        stdin.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: input))
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let diagnostics = String(decoding: errors.wait(), as: UTF8.self)
        guard process.terminationStatus == 0,
            let answer = (try? JSONSerialization.jsonObject(with: output)) as? [String: Any]
        else {
            throw Failure(description: "\(script) exited \(process.terminationStatus): \(diagnostics)")
        }
        return answer
    }
}

/// Reads a file handle to its end on a thread of its own.
private final class Drain: Sendable {
    private let data = Mutex(Data())
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread { [self] in
            let read = handle.readDataToEndOfFile()
            data.withLock { $0 = read }
            done.signal()
        }.start()
    }

    /// Everything read, once the writer closed its end.
    func wait() -> Data {
        done.wait()
        return data.withLock { $0 }
    }
}
