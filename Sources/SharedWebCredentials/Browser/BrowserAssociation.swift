import CSodium
import Foundation

/// A browser the owner approved (KeePassXC-Browser's "association"): the third kind of caller,
/// beside apps (a token) and the owner (the passphrase). It proves itself in each session with
/// the identification key it was approved with, which the vault does not keep: only a keyed hash
/// of it, and its fingerprint for display.
public struct BrowserAssociation: Sendable, Equatable {
    /// The name the owner gave it: what the extension shows and sends back as the association's id.
    public let id: String
    /// The fingerprint of the browser's identification key (``fingerprint(of:)``), for display.
    public let fingerprint: String
    /// The keyed hash of the identification key (``VaultKeys/browserKeyHash(_:)``): what the key a
    /// session proves is checked against.
    let keyHash: [UInt8]
    /// Whether pages served over `http://` get its logins too.
    public let allowsHTTP: Bool
    /// `.ask`: the first release for each host waits for the owner.
    public let consent: ConsentMode
    /// When the owner approved it (whole seconds).
    public let createdAt: Date

    init(id: String, fingerprint: String, keyHash: [UInt8], allowsHTTP: Bool, consent: ConsentMode, createdAt: Date) {
        self.id = id
        self.fingerprint = fingerprint
        self.keyHash = keyHash
        self.allowsHTTP = allowsHTTP
        self.consent = consent
        self.createdAt = createdAt
    }

    /// Whether `hash` is the keyed hash of the identification key this browser was approved with
    /// (constant time).
    func isIdentified(byHash hash: [UInt8]) -> Bool {
        hash.withUnsafeBytes { given in keyHash.withUnsafeBytes { ConstantTime.equals(given, $0) } }
    }

    /// What tells this association from every other, also from one approved under the same name
    /// after it was revoked: its name, its key's fingerprint and when it was approved. What the
    /// service remembers for a browser (the owner's answers, the entries it was shown) is kept
    /// under it, so a new association inherits nothing of an old one.
    public var identity: String {
        "\(id)\n\(fingerprint)\n\(Int64(createdAt.timeIntervalSince1970))"
    }

    /// The audit actor of what this browser does: `browser:NAME`.
    public var actor: AuditActor { AuditActor(name: "browser:\(id)") }

    /// What the owner compares before approving: the first 16 bytes of the BLAKE2b-256 of the
    /// identification key, as 8 groups of 4 hexadecimal digits.
    public static func fingerprint(of identificationKey: [UInt8]) -> String {
        Sodium.ensureInitialized()
        var digest = [UInt8](repeating: 0, count: 32)
        _ = crypto_generichash(&digest, 32, identificationKey, UInt64(identificationKey.count), nil, 0)
        let hex = digest.prefix(16).map { String(format: "%02x", $0) }.joined()
        return stride(from: 0, to: hex.count, by: 4).map { offset in
            let start = hex.index(hex.startIndex, offsetBy: offset)
            return String(hex[start..<hex.index(start, offsetBy: 4)])
        }.joined(separator: " ")
    }

    /// The name offered when the owner approves without typing one: `browser-` and the first
    /// group of the fingerprint.
    public static func defaultName(for identificationKey: [UInt8]) -> String {
        "browser-" + fingerprint(of: identificationKey).prefix(4)
    }

    /// Throws `.invalidInput` naming what is wrong with a name the owner typed: 1 to 64
    /// characters, no control character, no leading or trailing space.
    public static func validate(name: String) throws {
        guard !name.isEmpty, name.count <= 64 else {
            throw SharedWebCredentialsError(
                .invalidInput, "a browser's name has 1 to 64 characters; this one has \(name.count)")
        }
        if let control = name.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
            throw SharedWebCredentialsError(
                .invalidInput,
                "a browser's name cannot hold the control character U+\(String(control.value, radix: 16, uppercase: true))"
            )
        }
        guard name.trimmingCharacters(in: .whitespaces) == name else {
            throw SharedWebCredentialsError(.invalidInput, "a browser's name cannot start or end with a space")
        }
    }
}
