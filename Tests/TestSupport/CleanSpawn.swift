import CSpawnSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Starts a program with posix_spawn and waits for it, as a fresh process: its standard
/// descriptors opened on the files given, every other descriptor closed, no signal blocked and
/// every signal at its default action. For the programs that outlive their call (a tmux server,
/// a PostgreSQL server): Foundation's Process learns of a child's exit through a descriptor the
/// child inherits, so a server that kept it open made Process wait for ever (``TerminalSession``).
enum CleanSpawn {
    /// A standard descriptor's file and how it is opened.
    struct Stream {
        let path: String
        let flags: Int32

        static let null = Stream(path: "/dev/null", flags: O_RDWR)

        static func output(_ path: String) -> Stream { Stream(path: path, flags: O_WRONLY | O_CREAT | O_TRUNC) }
    }

    /// Runs `words` (the program, looked up in PATH, then its arguments) with standard input,
    /// output and error on `streams`, waits for it and returns its exit status (128 + the signal
    /// for a signal). Throws the reason it could not start, for the caller's message.
    static func run(_ words: [String], streams: [Stream]) throws(Failure) -> Int32 {
        precondition(streams.count == 3, "give standard input, output and error")
        var argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (descriptor, stream) in streams.enumerated() {
            posix_spawn_file_actions_addopen(&actions, Int32(descriptor), stream.path, stream.flags, 0o600)
        }
        let closing = cspawn_add_close_from(&actions, 3)
        guard closing == 0 else { throw Failure(what: "set up \(words[0])'s descriptors", errno: closing) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        var allSignals = sigset_t()
        sigemptyset(&noSignals)
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid = pid_t()
        let spawned = posix_spawnp(&pid, words[0], &actions, &attributes, &argv, environ)
        guard spawned == 0 else { throw Failure(what: "start \(words[0])", errno: spawned) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    /// What could not be done, and the system's reason.
    struct Failure: Error, CustomStringConvertible {
        let what: String
        let errno: Int32

        var description: String { "cannot \(what): \(String(cString: strerror(errno)))" }
    }
}
