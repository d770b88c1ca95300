import ArgumentParser
import SharedWebCredentials
import SwcredHardening

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs the tool and turns every failure into the exit code documented in README; warns once,
/// at the end, when secrets could not be locked into memory.
func runSwcred() async -> Int32 {
    let status = await runCommand()
    if case .failed(let reason) = SecretMemory.lockState {
        Terminal.printWarning(
            "secrets could not be locked into memory (\(reason)), so they may be written to swap; raise the limit with `ulimit -l` or LimitMEMLOCK= in a systemd unit"
        )
    }
    return status
}

/// Runs the command line's command.
func runCommand() async -> Int32 {
    do {
        var command = try SwcredCommand.parseAsRoot()
        if var asyncCommand = command as? AsyncParsableCommand {
            try await asyncCommand.run()
        } else {
            try command.run()
        }
        return 0
    } catch let error as SharedWebCredentialsError {
        Terminal.printError(error.message)
        return ExitStatus.code(for: error.code)
    } catch {
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
