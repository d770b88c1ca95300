import ArgumentParser
import Foundation
import SharedWebCredentials
import SwcredHardening
import SwcredService

#if canImport(Glibc)
    import Glibc
#endif

/// The exit code for a start-up failure (DESIGN.md's table; the service's own conditions as noted).
func exitCode(for error: any Error) -> Int32 {
    if let error = error as? SharedWebCredentialsError { return error.code.exitStatus }
    if let error = error as? ServiceStartError {
        switch error.reason {
        case .busy: return 11  // another service holds the socket
        case .unusableSocketPath: return 2  // fix --socket
        case .unusableListenAddress: return 2  // fix --listen
        }
    }
    return 1
}

/// Runs the service and returns the exit status (DESIGN.md's table).
func runService(environmentPassphrase: SecureBytes?) async -> Int32 {
    do {
        let command = try ServiceStartCommand.parse()
        try await command.serve(environmentPassphrase: environmentPassphrase)
        return 0
    } catch let error as SharedWebCredentialsError {
        FileHandle.standardError.write(Data("swcred serve: \(error.message)\n".utf8))
        return exitCode(for: error)
    } catch let error as ServiceStartError {
        FileHandle.standardError.write(Data("swcred serve: \(error.description)\n".utf8))
        return exitCode(for: error)
    } catch {
        let status = ServiceStartCommand.exitCode(for: error)
        if status == .success {
            print(ServiceStartCommand.fullMessage(for: error))
            return 0
        }
        FileHandle.standardError.write(Data((ServiceStartCommand.fullMessage(for: error) + "\n").utf8))
        return status == .validationFailure ? 2 : exitCode(for: error)
    }
}

// First of all, before any secret exists in this process: `execve` from `swcred serve` made it
// dumpable again. Then the passphrase leaves the environment, its bytes overwritten in place.
ProcessHardening.apply()
let environmentPassphrase = ProcessHardening.takeEnvironmentSecret("SWCRED_PASSPHRASE") {
    SecureBytes(copying: $0)
}
exit(await runService(environmentPassphrase: environmentPassphrase))
