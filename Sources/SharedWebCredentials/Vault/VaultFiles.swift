import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The permissions of the files behind a vault: what swcred creates, and what it refuses to use.
enum VaultFiles {
    /// A file this process created, identified by device and inode.
    struct CreatedFile {
        let device: UInt64
        let inode: UInt64

        /// Throws unless `path` is still the file that was created: SQLite opens the vault by
        /// path, so this shows that nobody put another file there in between.
        func requireSameFile(path: String) throws {
            var info = stat()
            guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, UInt64(info.st_dev) == device,
                UInt64(info.st_ino) == inode
            else {
                throw SharedWebCredentialsError(
                    .integrityFailure,
                    "The new vault \(path) was replaced by another file while it was being created; nothing was written to it. Check who else can write to its directory."
                )
            }
        }
    }

    /// Creates the vault file (0600, `O_EXCL`, not through a symbolic link) and any missing
    /// directory (0700, created with that mode rather than changed to it afterwards). Refuses a
    /// directory that its group or others may write to. Never overwrites.
    static func createVaultFile(path: String) throws -> CreatedFile {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            try createPrivateDirectory(directory)
            try requireNotWritableByOthers(directory: directory)
        }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            if errno == EEXIST {
                throw SharedWebCredentialsError(
                    .vaultExists,
                    "A file already exists at \(path); swcred init never overwrites. Choose another --vault path or remove the old vault yourself."
                )
            }
            throw SharedWebCredentialsError(
                .invalidInput, "Cannot create the vault \(path): \(String(cString: strerror(errno))).")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            unlink(path)
            throw SharedWebCredentialsError(
                .internalError, "Cannot inspect the new vault \(path): \(String(cString: strerror(errno))).")
        }
        return CreatedFile(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// Creates `directory` and any missing parent with mode 0700.
    private static func createPrivateDirectory(_ directory: String) throws {
        var info = stat()
        if stat(directory, &info) == 0 { return }
        let parent = (directory as NSString).deletingLastPathComponent
        if !parent.isEmpty, parent != directory { try createPrivateDirectory(parent) }
        guard mkdir(directory, 0o700) == 0 || errno == EEXIST else {
            throw SharedWebCredentialsError(
                .invalidInput,
                "Cannot create the vault directory \(directory): \(String(cString: strerror(errno))). Check the --vault path and permissions."
            )
        }
    }

    /// Refuses a vault file (or its WAL or shared-memory file, or its directory) that its group or
    /// others may write to: they could alter or replace it. Throws `.invalidInput` with the
    /// `chmod` to run.
    static func requireNotWritableByOthers(vault path: String) throws {
        for file in [path, path + "-wal", path + "-shm"] {
            var info = stat()
            guard stat(file, &info) == 0 else { continue }
            if info.st_mode & 0o022 != 0 {
                throw SharedWebCredentialsError(
                    .invalidInput,
                    "The vault file \(file) may be written by \(whoElse(info.st_mode)) (mode \(mode(info.st_mode))), who could alter it: run `chmod 600 \(ShellWord.quoted(file))` and try again."
                )
            }
        }
        let directory = (path as NSString).deletingLastPathComponent
        try requireNotWritableByOthers(directory: directory.isEmpty ? "." : directory)
    }

    private static func requireNotWritableByOthers(directory: String) throws {
        var info = stat()
        guard stat(directory, &info) == 0, info.st_mode & 0o022 != 0 else { return }
        throw SharedWebCredentialsError(
            .invalidInput,
            "The vault directory \(directory) may be written by \(whoElse(info.st_mode)) (mode \(mode(info.st_mode))), who could replace the vault or its journal: run `chmod 700 \(ShellWord.quoted(directory))` (or keep the vault in a private directory) and try again."
        )
    }

    /// Refuses a secret file (key or passphrase file) that its group or others may read, as ssh
    /// refuses such a private key. Only regular files are checked: pipes and terminals are not
    /// files someone else can read later.
    static func requireNotReadableByOthers(descriptor: Int32, path: String, what: String) throws {
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_mode & 0o044 != 0 else {
            return
        }
        throw SharedWebCredentialsError(
            .invalidInput,
            "The \(what) \(path) may be read by \(whoElse(info.st_mode, reading: true)) (mode \(mode(info.st_mode))): run `chmod 600 \(ShellWord.quoted(path))` and try again; if someone else may have read it, treat the secret as leaked."
        )
    }

    private static func whoElse(_ mode: mode_t, reading: Bool = false) -> String {
        let group: mode_t = reading ? 0o040 : 0o020
        let others: mode_t = reading ? 0o004 : 0o002
        switch (mode & group != 0, mode & others != 0) {
        case (true, true): return "its group and by everyone"
        case (true, false): return "its group"
        default: return "everyone"
        }
    }

    private static func mode(_ mode: mode_t) -> String {
        "0" + String(mode & 0o7777, radix: 8)
    }
}

/// Quoting a path for a shell command shown in a message.
enum ShellWord {
    /// `word` as is when it needs no quoting, else in single quotes.
    static func quoted(_ word: String) -> String {
        let plain = word.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || "/._-+,:@%".utf8.contains(byte)
        }
        if plain, !word.isEmpty { return word }
        return "'" + word.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
