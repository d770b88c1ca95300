/// A `PublicKeyCredentialDescriptorJSON` of `excludeCredentials` or `allowCredentials`.
public struct CredentialDescriptor: Sendable, Equatable {
    /// The credential ID.
    public var id: [UInt8]
    /// The transports the relying party has seen it use (informational here).
    public var transports: [String]

    /// A descriptor of a public-key credential.
    public init(id: [UInt8], transports: [String] = []) {
        self.id = id
        self.transports = transports
    }

    /// The descriptors of a list, skipping those whose `type` is not `public-key` (as WebAuthn
    /// clients do, so that future credential types do not break older clients).
    static func list(_ items: [JSONValue]?, path: String) throws(WebAuthnError) -> [CredentialDescriptor] {
        var result: [CredentialDescriptor] = []
        for (index, item) in (items ?? []).enumerated() {
            let reader = try WebAuthnJSONReader(item, path: "\(path)[\(index)]")
            try reader.requireOnly(["type", "id", "transports"])
            let type = try reader.requiredString("type")
            let id = try reader.requiredBytes("id")
            let transports = try reader.strings("transports")
            guard type == "public-key" else { continue }
            result.append(CredentialDescriptor(id: id, transports: transports))
        }
        return result
    }
}

/// `userVerification`: whether the relying party wants the person verified.
public enum UserVerificationRequirement: String, Sendable {
    /// Fail unless the person is verified (UV).
    case required
    /// Verify if possible (the default).
    case preferred
    /// Do not bother verifying.
    case discouraged

    /// The value a member names; an unknown value counts as the default, `preferred` (WebAuthn
    /// declares these members as strings so that new values do not break clients).
    init(member: String?) {
        self = member.flatMap(Self.init(rawValue:)) ?? .preferred
    }
}

/// The challenge rule shared by both ceremonies.
enum Challenge {
    /// The shortest challenge swcred signs. WebAuthn asks relying parties for at least 16 random
    /// bytes (§13.4.3); a shorter one suggests a replayable or guessable value, so it is refused
    /// as `NotAllowedError` (code invalid-input) rather than signed.
    static let minimumByteCount = 16

    static func read(_ reader: WebAuthnJSONReader) throws(WebAuthnError) -> [UInt8] {
        let challenge = try reader.requiredBytes("challenge")
        guard challenge.count >= minimumByteCount else {
            throw WebAuthnError(
                .notAllowed, .invalidInput,
                "\(reader.path).challenge has \(challenge.count) bytes; a challenge needs at least \(minimumByteCount) random bytes"
            )
        }
        return challenge
    }
}
