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
