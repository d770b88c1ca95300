import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A raw 32-byte vault-unlocking key stored in a file, for unattended use instead of a passphrase.
public enum KeyFile {
    /// The exact size of a key file in bytes.
    public static let length = 32

    /// Creates a new key file with 32 random bytes, mode 0600. Never overwrites an existing file.
    public static func create(at path: String) throws -> SecureBytes {
        let key = SecureBytes.random(count: length)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            if errno == EEXIST {
                throw SharedWebCredentialsError(
                    .vaultExists, "A file already exists at the key file path \(path); key files are never overwritten."
                )
            }
            throw SharedWebCredentialsError(
                .invalidInput, "Cannot create the key file \(path): \(String(cString: strerror(errno))).")
        }
        defer { close(descriptor) }
        let written = key.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == length, fsync(descriptor) == 0 else {
            unlink(path)
            throw SharedWebCredentialsError(.internalError, "Could not write the key file \(path) completely.")
        }
        return key
    }

    /// Reads a key file. It must hold exactly 32 bytes and be readable by its owner only.
    public static func read(at path: String) throws -> SecureBytes {
        let bytes = try SecretFile.read(at: path, limit: length + 1, what: "key file")
        guard bytes.count == length else {
            throw SharedWebCredentialsError(
                .invalidInput,
                "The key file \(path) has \(bytes.count) bytes; a key file holds exactly \(length): pass the file `swcred init --key-file` made."
            )
        }
        return bytes
    }
}

/// Reads small secret files straight into locked memory.
enum SecretFile {
    /// Reads at most `limit` bytes of the file at `path` into secure memory. With
    /// `requirePrivate`, a regular file that its group or others may read is refused.
    static func read(at path: String, limit: Int, what: String, requirePrivate: Bool = true) throws -> SecureBytes {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw SharedWebCredentialsError(
                .invalidInput, "Cannot read the \(what) \(path): \(String(cString: strerror(errno))).")
        }
        defer { close(descriptor) }
        if requirePrivate { try VaultFiles.requireNotReadableByOthers(descriptor: descriptor, path: path, what: what) }
        return try read(descriptor: descriptor, limit: limit, naming: "the \(what) \(path)")
    }

    /// Reads at most `limit` bytes from an open descriptor, up to its end, into secure memory;
    /// `naming` is how errors name the source ("the key file PATH", "the password on standard input").
    static func read(descriptor: Int32, limit: Int, naming: String) throws -> SecureBytes {
        var total = 0
        let scratch = try SecureBytes(count: limit) { buffer in
            while total < limit {
                let count = Glibc.read(descriptor, buffer.baseAddress! + total, limit - total)
                if count < 0 {
                    if errno == EINTR { continue }
                    throw SharedWebCredentialsError(
                        .invalidInput, "Cannot read \(naming): \(String(cString: strerror(errno))).")
                }
                if count == 0 { break }
                total += count
            }
        }
        return scratch.withUnsafeBytes { SecureBytes(copying: UnsafeRawBufferPointer(rebasing: $0[0..<total])) }
    }
}
