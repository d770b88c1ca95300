import CProcessHardening

#if canImport(Glibc)
    import Glibc
#endif

/// What `swcred` and `swcred-serve` each do to their own process before anything else, as
/// ssh-agent and gpg-agent do: no core dumps, no unprivileged debugger or `/proc/PID/mem` reader,
/// and no crash backtracer, since any of them could copy a passphrase, a vault key or a password
/// out of memory. Each executable applies it itself: `execve` makes a process dumpable again, so
/// `swcred serve` handing over to `swcred-serve` does not carry it across.
///
/// Set `SWCRED_ALLOW_CORE_DUMPS=1` to leave all three as they were, for debugging a crash.
public enum ProcessHardening {
    /// The environment variable that opts out, for debugging.
    public static let optOutVariable = "SWCRED_ALLOW_CORE_DUMPS"

    /// The signals the Swift runtime catches to run its backtracer (docs/Backtracing.rst).
    private static let crashSignals = [SIGQUIT, SIGABRT, SIGBUS, SIGFPE, SIGILL, SIGSEGV, SIGTRAP]

    /// Applies the hardening unless `SWCRED_ALLOW_CORE_DUMPS=1`:
    /// - `prctl(PR_SET_DUMPABLE, 0)`: no core file, and `/proc/PID/mem`, `/proc/PID/environ` and
    ///   ptrace closed to other processes of the same user (the kernel makes those files root's);
    /// - `RLIMIT_CORE` 0, soft and hard, so no child dumps core either;
    /// - the crash signals back to their default action. The Swift runtime installs handlers for
    ///   them that start `swift-backtrace`, which prints registers and the memory around them and,
    ///   on a terminal or with `SWIFT_BACKTRACE=interactive=yes`, offers a debugger; with the
    ///   default action a crash just ends the process, whatever `SWIFT_BACKTRACE` says.
    public static func apply() {
        guard !isOptedOut else { return }
        _ = cprocess_set_dumpable(0)
        var none = rlimit(rlim_cur: 0, rlim_max: 0)
        _ = setrlimit(Int32(RLIMIT_CORE.rawValue), &none)
        for signal in crashSignals { _ = Glibc.signal(signal, SIG_DFL) }
    }

    /// Whether `SWCRED_ALLOW_CORE_DUMPS=1` asked for no hardening.
    public static var isOptedOut: Bool {
        guard let value = getenv(optOutVariable) else { return false }
        return String(cString: value) == "1"
    }

    /// Whether other processes of the same user may read this process's memory and environment
    /// (`/proc/PID/mem`, `/proc/PID/environ`, ptrace): whether it is dumpable.
    public static var isDumpable: Bool {
        cprocess_get_dumpable() != 0
    }

    /// Whether this process can dump core now: dumpable and a core size limit above zero.
    public static var coreDumpsPossible: Bool {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_CORE.rawValue), &limit) == 0 else { return false }
        return cprocess_get_dumpable() == 1 && limit.rlim_cur > 0
    }

    /// Hands the value of the environment variable `name` to `body`, then wipes it: its bytes
    /// are overwritten with zeros where they are (the block the kernel shows as
    /// `/proc/PID/environ`, to root too, whatever `unsetenv` does) and the variable is removed.
    /// Returns nil, calling nothing, when the variable is not set.
    public static func takeEnvironmentSecret<Result>(
        _ name: String, _ body: (UnsafeRawBufferPointer) throws -> Result
    ) rethrows -> Result? {
        guard let value = getenv(name) else { return nil }
        let count = strlen(value)
        defer {
            memset(value, 0, count)
            unsetenv(name)
        }
        return try body(UnsafeRawBufferPointer(start: value, count: count))
    }
}
