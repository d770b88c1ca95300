import ArgumentParser
import CConformanceRegistration
import SharedWebCredentials
import SwcredHardening

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs the tool and turns every failure into the exit code documented in README; warns once,
/// at the end, when secrets could not be locked into memory.
///
/// On the main actor, as the top-level code that calls it: the command line is parsed, and a
/// synchronous command runs, on the main thread, and only an asynchronous command's `run()`
/// leaves it. A nonisolated `async` function here would hand everything to the concurrency pool,
/// whose four threads are started for it: 0.9 ms of CPU per call, and on a busy machine a wait
/// for a thread to get a core (Benchmarks/README.md, Start-up).
@MainActor
func runSwcred() async -> Int32 {
    let status = await runCommand()
    if case .failed(let reason) = SecretMemory.lockState {
        Terminal.printWarning(
            "secrets could not be locked into memory (\(reason)), so they may be written to swap; raise the limit with `ulimit -l` or LimitMEMLOCK= in a systemd unit"
        )
    }
    return status
}

/// Runs the command line's command. The deferred conformance records (Foundation's and the
/// third-party packages') reach the runtime once the command line is parsed, before anything else
/// runs: parsing casts only the runtime's, argument parsing's and swcred's own types, and a cast
/// the runtime has not cached scans every record it knows (Sources/CConformanceRegistration).
/// Every message, help and version included, is made after it: `--experimental-dump-help` encodes
/// the command tree with Foundation's JSON encoder, which crashed without them.
@MainActor
func runCommand() async -> Int32 {
    do {
        var command = try SwcredCommand.parseAsRoot()
        swcred_register_deferred_conformances()
        if var asyncCommand = command as? AsyncParsableCommand {
            try await asyncCommand.run()
        } else {
            try command.run()
        }
        return 0
    } catch let error as SharedWebCredentialsError {
        swcred_register_deferred_conformances()
        Terminal.printError(error.message)
        return ExitStatus.code(for: error.code)
    } catch {
        swcred_register_deferred_conformances()
        let status = SwcredCommand.exitCode(for: error)
        let message = SwcredCommand.fullMessage(for: error)
        if status == .success {
            if !message.isEmpty { print(message) }
            return 0
        }
        if let exitCode = error as? ExitCode {
            return exitCode.rawValue
        }
        if !message.isEmpty { Terminal.printError(message, prefixed: false) }
        return ExitStatus.invalidArguments
    }
}

ProcessHardening.apply()
exit(await runSwcred())
