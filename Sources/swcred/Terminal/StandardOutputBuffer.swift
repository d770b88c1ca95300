import SharedWebCredentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Collects output bytes in one large buffer and writes them to standard output with write(2) when
/// full, so that streaming millions of lines costs a system call per 64 KiB, not per line.
/// Written bytes are wiped before the buffer is reused, since they may be passwords.
struct StandardOutputBuffer {
    private static let flushThreshold = 1 << 16
    /// The bytes not yet written.
    var bytes: [UInt8] = []

    init() {
        bytes.reserveCapacity(Self.flushThreshold + 4096)
    }

    /// Appends text.
    mutating func append(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    /// Writes the buffer out once it holds at least 64 KiB.
    mutating func flushIfFull() throws {
        if bytes.count >= Self.flushThreshold { try flush() }
    }

    /// Writes everything collected, then wipes and empties the buffer.
    mutating func flush() throws {
        var failure: Int32 = 0
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(STDOUT_FILENO, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 && errno == EINTR { continue }
                if written <= 0 {
                    failure = errno
                    return
                }
                offset += written
            }
        }
        for index in bytes.indices { bytes[index] = 0 }
        bytes.removeAll(keepingCapacity: true)
        if failure != 0 {
            throw SharedWebCredentialsError(
                .internalError, "Cannot write to standard output: \(String(cString: strerror(failure))).")
        }
    }
}
