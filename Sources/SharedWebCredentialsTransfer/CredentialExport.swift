import Foundation
import SharedWebCredentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes every credential of a vault to an unencrypted file in an open format.
public struct CredentialExport {
    public let format: ExportFormat

    public init(format: ExportFormat) {
        self.format = format
    }

    /// Creates `path` for an export: a new file, mode 0600, never an existing one (which is
    /// left untouched). Returns its descriptor.
    public static func createFile(at path: String) throws -> Int32 {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let code = errno
            if code == EEXIST { throw existingFile(path) }
            throw SharedWebCredentialsError(
                .invalidInput,
                "cannot create \(path): \(String(cString: strerror(code))); check the directory and its permissions")
        }
        // The creation mode is filtered by the umask, which can only take bits away; make it exact.
        fchmod(descriptor, 0o600)
        return descriptor
    }

    /// The refusal to write over `path`, which exists (a caller may check before asking anything).
    public static func existingFile(_ path: String) -> SharedWebCredentialsError {
        SharedWebCredentialsError(
            .invalidInput,
            "\(path) already exists, and swcred never overwrites a file: choose a new name, or remove it first")
    }

    /// What an export wrote.
    public struct Counts: Sendable, Equatable {
        /// Passwords written.
        public let credentials: Int
        /// Passkeys written (only CXF carries them; 0 for the other formats).
        public let passkeys: Int
    }

    /// Writes every credential of `vault` to `descriptor` (in batches, so memory stays flat),
    /// and for CXF every passkey too, and returns how many were written. The export is recorded
    /// in the audit log first: if the entry cannot be written, no password is. Throws
    /// `.integrityFailure` at a damaged record, or `.storageFailure` if the entry or the output
    /// cannot be written.
    @discardableResult
    public func write(_ vault: Vault, to descriptor: Int32) throws -> Counts {
        try vault.audit.append(AuditEvent(actor: .owner, operation: .export))
        let encoder = ExportEncoder(format: format)
        var output = ExportOutput(descriptor: descriptor)
        try output.append(encoder.prefix)
        var credentials = 0
        try vault.credentials.forEach { credential in
            if credentials > 0 { try output.append(encoder.separator) }
            try output.append(encoder.record(credential))
            credentials += 1
        }
        var passkeys = 0
        if format.carriesPasskeys {
            try vault.passkeys.forEachWithPrivateKey { passkey in
                if credentials + passkeys > 0 { try output.append(encoder.separator) }
                try output.append(encoder.record(passkey))
                passkeys += 1
            }
        }
        try output.append(encoder.suffix)
        try output.flush()
        return Counts(credentials: credentials, passkeys: passkeys)
    }
}

/// Buffered writes to a file descriptor, wiped when flushed: the buffer holds passwords.
struct ExportOutput {
    let descriptor: Int32
    private var buffer: [UInt8] = []

    init(descriptor: Int32) {
        self.descriptor = descriptor
        buffer.reserveCapacity(Self.flushSize * 2)
    }

    static let flushSize = 256 * 1024

    mutating func append(_ text: String) throws {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= Self.flushSize { try flush() }
    }

    mutating func flush() throws {
        var offset = 0
        while offset < buffer.count {
            let written = buffer[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                let reason = String(cString: strerror(errno))
                wipe()
                throw SharedWebCredentialsError(.storageFailure, "the export could not be written: \(reason)")
            }
            offset += written
        }
        wipe()
    }

    private mutating func wipe() {
        buffer.withUnsafeMutableBytes { if let base = $0.baseAddress { memset(base, 0, $0.count) } }
        buffer.removeAll(keepingCapacity: true)
    }
}
