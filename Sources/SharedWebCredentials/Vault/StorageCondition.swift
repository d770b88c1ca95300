import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Facts about the file system under a vault, to explain an SQLite failure in plain words.
enum StorageCondition {
    /// Below this much free space the file system counts as full: SQLite needs at least a page
    /// for the WAL and 32 KiB for the shared-memory file.
    static let nearlyFullBytes: UInt64 = 64 * 1024

    /// Whether the file system holding `path` (or its directory) has less than
    /// ``nearlyFullBytes`` free for unprivileged and privileged writers alike.
    static func isNearlyFull(path: String) -> Bool {
        guard let info = fileSystemInfo(path: path) else { return false }
        return UInt64(info.f_bfree) * UInt64(info.f_frsize) < nearlyFullBytes
    }

    /// Whether the file system holding `path` (or its directory) is mounted read-only.
    static func isReadOnlyFileSystem(path: String) -> Bool {
        guard let info = fileSystemInfo(path: path) else { return false }
        return info.f_flag & UInt(ST_RDONLY) != 0
    }

    /// EMFILE or ENFILE when the file at `path` cannot be opened by SQLite because this process,
    /// or the whole system, has too few file descriptors left (what SQLite reports only as
    /// "cannot open"): SQLite holds three, the file, its write-ahead log and its shared memory.
    /// Nil when three can be had, or the file fails to open for another reason.
    static func descriptorShortage(path: String) -> Int32? {
        var held: [Int32] = []
        defer { for descriptor in held { close(descriptor) } }
        let file = open(path, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { return shortage(errno) }
        held.append(file)
        for _ in 1..<3 {
            let copy = fcntl(file, F_DUPFD_CLOEXEC, 0)
            guard copy >= 0 else { return shortage(errno) }
            held.append(copy)
        }
        return nil
    }

    private static func shortage(_ failure: Int32) -> Int32? {
        failure == EMFILE || failure == ENFILE ? failure : nil
    }

    private static func fileSystemInfo(path: String) -> statvfs? {
        let directory = (path as NSString).deletingLastPathComponent
        for candidate in [path, directory.isEmpty ? "." : directory] {
            var info = statvfs()
            if statvfs(candidate, &info) == 0 { return info }
        }
        return nil
    }
}
