import CProcessHardening

#if canImport(Glibc)
    import Glibc
#endif

/// What swcred does to its own process before anything else, as ssh-agent and gpg-agent do: no
/// core dumps, no unprivileged debugger attaching, and no crash backtracer, since any of them
/// could copy a passphrase, a vault key or a password out of memory.
///
/// Set `SWCRED_ALLOW_CORE_DUMPS=1` to leave all three as they were, for debugging a crash.
enum ProcessHardening {
    /// The environment variable that opts out, for debugging.
    static let optOutVariable = "SWCRED_ALLOW_CORE_DUMPS"

    /// The signals the Swift runtime catches to run its backtracer (docs/Backtracing.rst).
    private static let crashSignals = [SIGQUIT, SIGABRT, SIGBUS, SIGFPE, SIGILL, SIGSEGV, SIGTRAP]

    /// Applies the hardening unless `SWCRED_ALLOW_CORE_DUMPS=1`:
    /// - `prctl(PR_SET_DUMPABLE, 0)`: no core file, and `/proc/PID/mem` and ptrace closed to
    ///   other processes of the same user;
    /// - `RLIMIT_CORE` 0, soft and hard, so no child dumps core either;
    /// - the crash signals back to their default action. The Swift runtime installs handlers for
    ///   them that start `swift-backtrace`, which prints registers and the memory around them and,
    ///   on a terminal or with `SWIFT_BACKTRACE=interactive=yes`, offers a debugger; with the
    ///   default action a crash just ends the process, whatever `SWIFT_BACKTRACE` says.
    static func apply() {
        guard !isOptedOut else { return }
        _ = cprocess_set_dumpable(0)
        var none = rlimit(rlim_cur: 0, rlim_max: 0)
        _ = setrlimit(Int32(RLIMIT_CORE.rawValue), &none)
        for signal in crashSignals { _ = Glibc.signal(signal, SIG_DFL) }
    }

    /// Whether `SWCRED_ALLOW_CORE_DUMPS=1` asked for no hardening.
    static var isOptedOut: Bool {
        guard let value = getenv(optOutVariable) else { return false }
        return String(cString: value) == "1"
    }

    /// Whether this process can dump core now: dumpable and a core size limit above zero.
    static var coreDumpsPossible: Bool {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_CORE.rawValue), &limit) == 0 else { return false }
        return cprocess_get_dumpable() == 1 && limit.rlim_cur > 0
    }
}
