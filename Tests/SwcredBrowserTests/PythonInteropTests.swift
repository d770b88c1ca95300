import Foundation
import Testing

@testable import SwcredBrowser

/// Runs `Tests/Browser/interop.py` with the pinned PyNaCl and pyotp of `.build-venv/browser`
/// (Scripts/bootstrap makes it from `Tests/Browser/requirements.txt`). A missing environment is
/// a failure naming the command to run, never a skip.
enum Interop {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let python = root.appendingPathComponent(".build-venv/browser/bin/python").path

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func run(_ ops: [[String: Any]]) throws -> [[String: Any]] {
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw Failure(
                description:
                    "the browser tests' Python is missing (\(python)): run Scripts/bootstrap, which makes .build-venv/browser with PyNaCl and pyotp pinned"
            )
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [root.appendingPathComponent("Tests/Browser/interop.py").path]
        let (input, output) = (Pipe(), Pipe())
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent("interop-\(UUID().uuidString).err")
        FileManager.default.createFile(atPath: errors.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errors) }
        process.standardInput = input
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        input.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: ["ops": ops]))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0,
            let answer = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
            let results = answer["results"] as? [[String: Any]], results.count == ops.count
        else {
            let diagnostics = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            throw Failure(description: "interop.py exited \(process.terminationStatus): \(diagnostics)")
        }
        return results
    }
}

private func b64(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }

@Suite("Interoperability with PyNaCl and pyotp")
struct PythonInteropTests {
    @Test("PyNaCl's crypto_box opens in the session, and the session's box opens in PyNaCl")
    func cryptoBoxBothWays() throws {
        let client = ClientKeys()
        let session = try BrowserCryptoSession(clientPublicKey: client.publicKeyBase64)
        let requestNonce = BrowserNonce.random()
        let request = Array(#"{"action":"get-logins","url":"https://example.com/é"}"#.utf8)
        let replyNonce = requestNonce.incremented()
        let reply = Array(#"{"success":"true","entries":[]}"#.utf8)
        let sealed = try session.seal(reply, nonce: replyNonce)
        var tampered = [UInt8](Data(base64Encoded: sealed)!)
        tampered[0] ^= 0x80

        let results = try Interop.run([
            [
                "op": "box", "message": b64(request), "nonce": requestNonce.base64,
                "public_key": session.hostPublicKeyBase64,
                "secret_key": b64(client.secretKey),
            ],
            [
                "op": "open", "box": sealed, "nonce": replyNonce.base64, "public_key": session.hostPublicKeyBase64,
                "secret_key": b64(client.secretKey),
            ],
            [
                "op": "open", "box": b64(tampered), "nonce": replyNonce.base64,
                "public_key": session.hostPublicKeyBase64,
                "secret_key": b64(client.secretKey),
            ],
            ["op": "increment", "nonce": requestNonce.base64],
            [
                "op": "increment",
                "nonce": b64([UInt8](repeating: 0xff, count: 5) + [UInt8](repeating: 0x00, count: 19)),
            ],
        ])
        let box = try #require(results[0]["box"] as? String)
        let opened = try session.open(message: box, nonce: requestNonce) { [UInt8]($0) }
        #expect(opened == request)
        #expect(results[1]["message"] as? String == b64(reply))
        #expect(results[2]["error"] != nil, "PyNaCl refuses a changed box")
        #expect(results[3]["nonce"] as? String == replyNonce.base64)
        let carried = try BrowserNonce(bytes: [UInt8](repeating: 0xff, count: 5) + [UInt8](repeating: 0, count: 19))
        #expect(results[4]["nonce"] as? String == carried.incremented().base64)
    }

    @Test("a whole conversation with PyNaCl as the extension's crypto")
    func engineWithPyNaClClient() async throws {
        let vault = MemoryVault()
        await vault.add(
            .init(uuid: "0123456789abcdef0123456789abcdef", host: "example.com", login: "alice", password: "pw"))
        let engine = BrowserProtocolEngine(vault: vault)
        let client = ClientKeys()
        let idKey = ClientKeys()
        let exchangeNonce = BrowserNonce.random()
        let keys = try #require(
            object(
                await engine.handle(
                    json([
                        "action": "change-public-keys", "publicKey": client.publicKeyBase64,
                        "nonce": exchangeNonce.base64,
                        "clientID": "py",
                    ])
                ).reply))
        let host = try #require(keys["publicKey"] as? String)
        var replies: [(BrowserNonce, [String: Any])] = []
        for inner in [
            ["action": "associate", "key": client.publicKeyBase64, "idKey": idKey.publicKeyBase64],
            ["action": "get-logins", "url": "https://example.com/"],
        ] {
            let nonce = BrowserNonce.random()
            let box =
                try Interop.run([
                    [
                        "op": "box", "message": b64(json(inner)), "nonce": nonce.base64, "public_key": host,
                        "secret_key": b64(client.secretKey),
                    ]
                ])[0]["box"] as? String
            let outcome = await engine.handle(
                json([
                    "action": inner["action"]!, "message": try #require(box), "nonce": nonce.base64, "clientID": "py",
                ]))
            #expect(outcome.refusal == nil)
            replies.append((nonce, try #require(object(outcome.reply))))
        }
        let opened = try Interop.run(
            replies.map { nonce, reply in
                [
                    "op": "open", "box": reply["message"] as? String ?? "", "nonce": nonce.incremented().base64,
                    "public_key": host,
                    "secret_key": b64(client.secretKey),
                ]
            })
        let loginsText = try #require(opened[1]["message"] as? String)
        let logins = try #require(object([UInt8](Data(base64Encoded: loginsText)!)))
        #expect((logins["entries"] as? [[String: Any]])?.first?["password"] as? String == "pw")
        #expect(logins["nonce"] as? String == replies[1].0.incremented().base64)
    }

    @Test("pyotp agrees on codes for each algorithm, digit count and period")
    func pyotpAgrees() throws {
        var ops: [[String: Any]] = []
        var expected: [String] = []
        let times: [UInt64] = [59, 1_111_111_109, 1_700_000_000, UInt64(Date().timeIntervalSince1970)]
        for algorithm in TOTP.Algorithm.allCases {
            for (digits, period) in [(6, 30), (8, 30), (7, 60)] {
                let uri =
                    "otpauth://totp/Example:alice?secret=\(RFC6238.base32[algorithm]!)&issuer=Example&algorithm=\(algorithm.rawValue)&digits=\(digits)&period=\(period)"
                let totp = try TOTP(uri: uri)
                for time in times {
                    ops.append(["op": "totp", "uri": uri, "time": time])
                    expected.append(totp.code(atUnixTime: time))
                }
            }
        }
        let results = try Interop.run(ops)
        #expect(results.map { $0["code"] as? String ?? "" } == expected)
    }
}
