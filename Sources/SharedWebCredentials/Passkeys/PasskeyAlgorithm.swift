/// The signature algorithms of swcred's passkeys, by COSE algorithm identifier (IANA registry).
public enum PasskeyAlgorithm: Int, Sendable, CaseIterable, CustomStringConvertible {
    /// ECDSA over P-256 with SHA-256 (`ES256`, -7): what every relying party accepts; required.
    case es256 = -7
    /// Ed25519 (`EdDSA`, -8): accepted by many relying parties; smaller and deterministic.
    case ed25519 = -8

    /// The size of a private key: the P-256 scalar or the Ed25519 seed.
    public var privateKeyByteCount: Int { 32 }

    /// The COSE algorithm identifier, as `pubKeyCredParams` and `publicKeyAlgorithm` give it.
    public var coseIdentifier: Int { rawValue }

    public var description: String {
        switch self {
        case .es256: "ES256"
        case .ed25519: "EdDSA (Ed25519)"
        }
    }

    /// The algorithm to use for a creation request: the first of `requested` (the relying
    /// party's order of preference) that swcred supports; nil when there is none.
    public static func preferred(among requested: [Int]) -> PasskeyAlgorithm? {
        requested.lazy.compactMap(PasskeyAlgorithm.init(rawValue:)).first
    }
}
