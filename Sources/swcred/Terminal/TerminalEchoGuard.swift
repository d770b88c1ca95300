import SharedWebCredentials

#if canImport(Glibc)
    import Glibc
#endif

/// Turns terminal echo off around a prompt and puts it back however the prompt ends: on return,
/// on a thrown error, and on SIGINT, SIGTERM, SIGHUP or SIGQUIT, so that Ctrl-C at a passphrase
/// prompt never leaves the user's shell typing blind.
enum TerminalEchoGuard {
    /// The terminal settings to put back. A signal handler cannot capture context, so they live
    /// here; only one prompt runs at a time, on the main thread.
    nonisolated(unsafe) fileprivate static var savedSettings = termios()

    /// The signals that end the process by default and so must restore the terminal first.
    private static let restoringSignals = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

    /// Runs `body` with echo off on standard input (a newline is still echoed, so the next
    /// output starts on its own line), and restores the previous settings and signal handlers.
    static func withEchoOff<Result>(_ body: () throws -> Result) throws -> Result {
        guard tcgetattr(STDIN_FILENO, &savedSettings) == 0 else {
            throw SharedWebCredentialsError(
                .vaultLocked, "Cannot read the terminal settings to prompt for a passphrase.")
        }
        var previousActions: [sigaction] = []
        for signal in restoringSignals {
            var previous = sigaction()
            sigaction(signal, nil, &previous)
            previousActions.append(previous)
            // A signal the process was started ignoring (nohup, a background job) stays ignored.
            guard !isIgnored(previous) else { continue }
            var action = sigaction()
            action.__sigaction_handler.sa_handler = restoreTerminalAndDie
            sigemptyset(&action.sa_mask)
            sigaction(signal, &action, nil)
        }
        defer {
            tcsetattr(STDIN_FILENO, TCSANOW, &savedSettings)
            for (signal, var previous) in zip(restoringSignals, previousActions) {
                sigaction(signal, &previous, nil)
            }
        }
        var silent = savedSettings
        silent.c_lflag &= ~tcflag_t(ECHO)
        silent.c_lflag |= tcflag_t(ECHONL)
        guard tcsetattr(STDIN_FILENO, TCSANOW, &silent) == 0 else {
            throw SharedWebCredentialsError(.vaultLocked, "Cannot turn off terminal echo to prompt for a passphrase.")
        }
        return try body()
    }

    /// Whether `action` ignores its signal.
    private static func isIgnored(_ action: sigaction) -> Bool {
        guard let handler = action.__sigaction_handler.sa_handler else { return false }
        return unsafeBitCast(handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
    }
}

/// The signal handler: restores the terminal (`tcsetattr` is async-signal-safe), then lets the
/// signal do what it would have done, so the shell still sees the process end by it.
private func restoreTerminalAndDie(_ signal: Int32) {
    tcsetattr(STDIN_FILENO, TCSANOW, &TerminalEchoGuard.savedSettings)
    Glibc.signal(signal, SIG_DFL)
    raise(signal)
}
