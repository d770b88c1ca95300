import Foundation
import Testing

@testable import SharedWebCredentials

@Suite("WebAuthn options JSON: decoded strictly")
struct PasskeyOptionsTests {
    typealias Support = PasskeyTestSupport

    static func creationError(_ json: [UInt8]) -> WebAuthnError? {
        Support.webAuthnError { _ = try PasskeyCreationOptions(json: json) }
    }

    static func requestError(_ json: [UInt8]) -> WebAuthnError? {
        Support.webAuthnError { _ = try PasskeyRequestOptions(json: json) }
    }

    @Test("creation options decode every member")
    func creationMembers() throws {
        let challenge = Support.challenge()
        let options = try PasskeyCreationOptions(
            json: Support.creationJSON(
                challenge: challenge, algorithms: [-8, -7], exclude: [Array(repeating: 7, count: 16)],
                userVerification: "required",
                extra: ["hints": ["client-device"], "extensions": ["credProps": true, "future": ["x": 1]]]))
        #expect(options.rpID == Support.rpID)
        #expect(options.rpName == "Example")
        #expect(options.userHandle == Array("user-1234".utf8))
        #expect(options.userName == "alice@example.com")
        #expect(options.userDisplayName == "Alice")
        #expect(options.challenge == challenge)
        #expect(options.algorithms == [-8, -7])
        #expect(options.timeout == 60000)
        #expect(options.excludeCredentials == [CredentialDescriptor(id: Array(repeating: 7, count: 16))])
        #expect(options.residentKey == "required")
        #expect(options.userVerification == .required)
        #expect(options.attestation == "none")
        #expect(options.hints == ["client-device"])
        #expect(PasskeyAlgorithm.preferred(among: options.algorithms) == .ed25519)
    }

    @Test("request options decode every member; unknown enumeration values count as the default")
    func requestMembers() throws {
        let options = try PasskeyRequestOptions(
            json: Support.requestJSON(allow: [Array(repeating: 1, count: 20)], userVerification: "someday"))
        #expect(options.rpID == Support.rpID)
        #expect(options.allowCredentials.map(\.id) == [Array(repeating: 1, count: 20)])
        #expect(options.userVerification == .preferred)
        #expect(options.timeout == 60000)
    }

    @Test("descriptors of another type are skipped, as clients skip them")
    func otherDescriptorTypesSkipped() throws {
        let options = try PasskeyRequestOptions(
            json: Support.requestJSON(extra: [
                "allowCredentials": [["type": "future-type", "id": "AAAA"], ["type": "public-key", "id": "AQID"]]
            ]))
        #expect(options.allowCredentials.map(\.id) == [[1, 2, 3]])
    }

    @Test("a challenge under 16 bytes is NotAllowedError")
    func shortChallenge() throws {
        let error = try #require(Self.creationError(Support.creationJSON(challenge: Array(repeating: 1, count: 15))))
        #expect(error.name == .notAllowed)
        #expect(error.code == .invalidInput)
        #expect(
            try PasskeyCreationOptions(json: Support.creationJSON(challenge: Array(repeating: 1, count: 16))).challenge
                .count == 16)
        let requestError = try #require(Self.requestError(Support.requestJSON(challenge: [1, 2, 3])))
        #expect(requestError.name == .notAllowed)
    }

    @Test(
        "malformed base64url is EncodingError",
        arguments: [
            "AAAAAAAAAAAAAAAAAAAAAA==", "AAAAAAAAAAAAAAAAAAAA+/AA", "AAAAAAAAAAAA AAAAAAAAAA",
            "AAAAAAAAAAAAAAAAAAAAAAAAA", "AAAAAAAAAAAAAAAAAAAAAB",
        ])
    func malformedBase64URL(_ challenge: String) throws {
        let error = try #require(Self.creationError(Support.creationJSON(extra: ["challenge": challenge])))
        #expect(error.name == .encoding, "\(error)")
        let userError = try #require(
            Self.creationError(
                Support.creationJSON(extra: ["user": ["id": challenge, "name": "a", "displayName": "A"]])))
        #expect(userError.name == .encoding)
    }

    @Test(
        "unknown members are TypeError at every level",
        arguments: [
            #"{"challange": "AAAAAAAAAAAAAAAAAAAAAA"}"#,
            #"{"excludeCredential": []}"#,
            #"{"rp": {"id": "login.example.com", "name": "Example", "icon": "x"}}"#,
            #"{"user": {"id": "AAAA", "name": "a", "displayName": "A", "nickname": "x"}}"#,
            #"{"authenticatorSelection": {"userVerification": "required", "requireUserVerification": true}}"#,
            #"{"pubKeyCredParams": [{"type": "public-key", "alg": -7, "name": "ES256"}]}"#,
            #"{"excludeCredentials": [{"type": "public-key", "id": "AAAAAAAAAAAAAAAAAAAAAA", "name": "x"}]}"#,
        ])
    func unknownMembers(_ extraJSON: String) throws {
        let extra = try #require(try JSONSerialization.jsonObject(with: Data(extraJSON.utf8)) as? [String: Any])
        let error = try #require(Self.creationError(Support.creationJSON(extra: extra)))
        #expect(error.name == .type, "\(error)")
        #expect(error.message.contains("unknown member"), "\(error)")
    }

    @Test("missing or mistyped members, repeated members and non-JSON are TypeError")
    func shapes() throws {
        var missingRPID = Support.creationJSON(extra: ["rp": ["name": "Example"]])
        #expect(Self.creationError(missingRPID)?.name == .type)
        missingRPID = Support.requestJSON(extra: ["rpId": NSNull()])
        #expect(Self.requestError(missingRPID)?.message.contains("rpId is required") == true)
        #expect(Self.creationError(Support.creationJSON(extra: ["timeout": "60000"]))?.name == .type)
        #expect(Self.creationError(Support.creationJSON(extra: ["timeout": 1.5]))?.name == .type)
        #expect(
            Self.creationError(Support.creationJSON(extra: ["pubKeyCredParams": [["type": "public-key"]]]))?.name
                == .type)
        let longHandle = Support.b64(Array(repeating: 1, count: 65))
        #expect(
            Self.creationError(
                Support.creationJSON(extra: ["user": ["id": longHandle, "name": "a", "displayName": "A"]]))?
                .name == .type)
        let repeated = Array(
            #"{"rpId":"login.example.com","rpId":"evil.example","challenge":"AAAAAAAAAAAAAAAAAAAAAA"}"#.utf8)
        #expect(Self.requestError(repeated)?.name == .type)
        #expect(Self.requestError(Array("[1]".utf8))?.name == .type)
        #expect(Self.requestError(Array("{".utf8))?.name == .type)
        #expect(Self.requestError(Support.requestJSON(extra: ["mediation": "conditional"]))?.name == .type)
    }

    @Test("base64url round-trips and refuses every non-canonical text")
    func base64URL() {
        for length in 0..<40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 200) }
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
        }
        #expect(Base64URL.decode("-_8") == [0xFB, 0xFF])
        // RFC 4648's test vectors, and Foundation's base64 with RFC 4648 §5's alphabet and no padding.
        for (text, encoded) in [
            ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"),
            ("foobar", "Zm9vYmFy"),
        ] {
            #expect(Base64URL.encode(Array(text.utf8)) == encoded)
            #expect(Base64URL.decode(encoded) == Array(text.utf8))
        }
        for length in 0..<70 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255) }
            let foundation = Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(Base64URL.encode(bytes) == foundation, "\(bytes)")
            #expect(Base64URL.decode(foundation) == bytes, "\(foundation)")
        }
        for bad in ["A", "AB=", "AB==", "A+B/", "AB C", "AC", "AAB", "\u{00E9}AAA", "AAAAA", "AA\nA", "AA\u{0}A"] {
            #expect(Base64URL.decode(bad) == nil, "\(bad)")
        }
    }
}
