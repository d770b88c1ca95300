import CSodium

/// Argon2id parameters for turning a passphrase into a key (libsodium's `crypto_pwhash`).
public struct KDFParameters: Sendable, Equatable, CustomStringConvertible {
    /// The number of passes over memory.
    public let opslimit: UInt64
    /// The memory used, in bytes.
    public let memlimit: UInt64

    /// The smallest opslimit libsodium accepts for Argon2id.
    public static let minimumOpslimit = UInt64(crypto_pwhash_argon2id_OPSLIMIT_MIN)
    /// The smallest memlimit (bytes) libsodium accepts for Argon2id.
    public static let minimumMemlimit = UInt64(crypto_pwhash_argon2id_MEMLIMIT_MIN)
    /// The largest opslimit swcred accepts (docs/security.md): libsodium would take up to
    /// 2^32 - 1 passes, and a vault file is not trusted before its key unwraps, so a crafted file
    /// could otherwise make every unlock run for days. 10 passes is 2.5 times the sensitive preset.
    public static let maximumOpslimit: UInt64 = 10
    /// The largest memlimit swcred accepts: 2 GiB, twice the sensitive preset (libsodium would
    /// take up to 4 TiB).
    public static let maximumMemlimit: UInt64 = 2 << 30

    /// The default: opslimit 3, 64 MiB.
    public static let `default` = KDFParameters(unchecked: 3, 64 << 20)
    /// libsodium's interactive preset: opslimit 2, 64 MiB.
    public static let interactive = KDFParameters(
        unchecked: UInt64(crypto_pwhash_argon2id_OPSLIMIT_INTERACTIVE),
        UInt64(crypto_pwhash_argon2id_MEMLIMIT_INTERACTIVE))
    /// libsodium's moderate preset: opslimit 3, 256 MiB.
    public static let moderate = KDFParameters(
        unchecked: UInt64(crypto_pwhash_argon2id_OPSLIMIT_MODERATE),
        UInt64(crypto_pwhash_argon2id_MEMLIMIT_MODERATE))
    /// libsodium's sensitive preset: opslimit 4, 1 GiB.
    public static let sensitive = KDFParameters(
        unchecked: UInt64(crypto_pwhash_argon2id_OPSLIMIT_SENSITIVE),
        UInt64(crypto_pwhash_argon2id_MEMLIMIT_SENSITIVE))

    /// Explicit parameters; throws `.invalidInput` below libsodium's minimum or above swcred's maximum.
    public init(opslimit: UInt64, memlimit: UInt64) throws {
        guard (Self.minimumOpslimit...Self.maximumOpslimit).contains(opslimit) else {
            throw SharedWebCredentialsError(
                .invalidInput,
                "Argon2id opslimit \(opslimit) is out of range: use \(Self.minimumOpslimit)...\(Self.maximumOpslimit).")
        }
        guard (Self.minimumMemlimit...Self.maximumMemlimit).contains(memlimit) else {
            throw SharedWebCredentialsError(
                .invalidInput,
                "Argon2id memlimit \(memlimit) bytes is out of range: use \(Self.minimumMemlimit)...\(Self.maximumMemlimit)."
            )
        }
        self.init(unchecked: opslimit, memlimit)
    }

    private init(unchecked opslimit: UInt64, _ memlimit: UInt64) {
        self.opslimit = opslimit
        self.memlimit = memlimit
    }

    /// The preset with this name (`interactive`, `moderate`, `sensitive`, or `default`), if any.
    public init?(preset name: String) {
        switch name {
        case "default": self = .default
        case "interactive": self = .interactive
        case "moderate": self = .moderate
        case "sensitive": self = .sensitive
        default: return nil
        }
    }

    public var description: String { "argon2id opslimit \(opslimit), memlimit \(memlimit >> 10) KiB" }
}

/// Argon2id key derivation from a passphrase.
enum PasswordHashing {
    /// The salt length in bytes.
    static let saltLength = Int(crypto_pwhash_argon2id_SALTBYTES)

    /// Derives a `length`-byte key from `passphrase` and `salt`.
    static func deriveKey(
        length: Int, passphrase: SecureBytes, salt: [UInt8], parameters: KDFParameters
    ) throws -> SecureBytes {
        precondition(salt.count == saltLength, "Argon2id salt must be \(saltLength) bytes")
        Sodium.ensureInitialized()
        return try SecureBytes(count: length) { output in
            let status = passphrase.withUnsafeBytes { secret in
                crypto_pwhash(
                    output.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(length),
                    secret.baseAddress!.assumingMemoryBound(to: CChar.self), UInt64(secret.count),
                    salt, parameters.opslimit, Int(parameters.memlimit),
                    crypto_pwhash_ALG_ARGON2ID13)
            }
            guard status == 0 else {
                throw SharedWebCredentialsError(
                    .internalError,
                    "Argon2id could not allocate \(parameters.memlimit >> 20) MiB: free memory or choose a smaller --kdf preset."
                )
            }
        }
    }
}
