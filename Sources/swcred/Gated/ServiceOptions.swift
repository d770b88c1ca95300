import ArgumentParser
import Foundation
import SharedWebCredentials
import SharedWebCredentialsClient

/// `--server` and `--token-file`: run a gated command through a running `swcred serve` instead
/// of opening the vault (no passphrase, no KDF). The token never comes from argv.
struct ServiceOptions: ParsableArguments {
    @Option(
        name: .customLong("server"),
        help: ArgumentHelp(
            "Go through the service at this Unix socket or https:// URL (default: $SWCRED_SERVER; unset: open the vault directly).",
            valueName: "socket-or-url"))
    var server: String?

    @Option(
        help: ArgumentHelp(
            "Read the app token from this file (default: $SWCRED_TOKEN). Only with a service.", valueName: "path"))
    var tokenFile: String?

    @OptionGroup var trust: ServerUIDOption

    /// The client for the service, or nil when no service is named (the direct path). Without
    /// `app` the client acts for the token's app; with it the service refuses a token of another.
    /// On a Unix socket the client checks the socket before it sends the token.
    func client(app: String?, caFile: String?) throws -> SharedWebCredentialsClient? {
        guard let named = namedServer else {
            for (option, given) in [("--token-file", tokenFile != nil), ("--server-uid", trust.serverUID != nil)]
            where given {
                throw SharedWebCredentialsError(
                    .invalidInput, "\(option) goes with a service: pass --server SOCKET_OR_URL or set SWCRED_SERVER")
            }
            return nil
        }
        let endpoint = try ServiceEndpoint(named)
        let identifier = try app.map { try ApplicationIdentifier($0) }
        return try SharedWebCredentialsClient(
            endpoint: endpoint, token: try token(), app: identifier, caFile: caFile,
            trustedServiceUID: try trust.trustedUID())
    }

    /// The service named by --server or SWCRED_SERVER, if any.
    var namedServer: String? {
        server ?? ProcessInfo.processInfo.environment["SWCRED_SERVER"].flatMap { $0.isEmpty ? nil : $0 }
    }

    private func token() throws -> SecureBytes {
        if let tokenFile { return try PassphraseFile.read(at: tokenFile, what: "token file") }
        if let value = getenv("SWCRED_TOKEN"), value.pointee != 0 {
            return SecureBytes(copying: UnsafeRawBufferPointer(start: value, count: strlen(value)))
        }
        throw SharedWebCredentialsError(
            .vaultLocked,
            "No app token for the service: set SWCRED_TOKEN or pass --token-file PATH (the owner makes one with `swcred app token create`)."
        )
    }

    /// Runs `body` with `client` and closes its connections however `body` ends.
    static func run<T>(
        _ client: SharedWebCredentialsClient, _ body: (SharedWebCredentialsClient) async throws -> T
    ) async throws -> T {
        do {
            let result = try await body(client)
            try? await client.shutdown()
            return result
        } catch {
            try? await client.shutdown()
            throw error
        }
    }
}

/// A credential the CLI releases, from the vault or from the service.
protocol ReleasableCredential {
    var server: String { get }
    var port: Int? { get }
    var account: String { get }
    var password: SecureBytes { get }
}

extension ReleasableCredential {
    /// `server` or `server:port`, as shown to people.
    var location: String { port.map { "\(server):\($0)" } ?? server }
}

extension Credential: ReleasableCredential {}
extension ServiceCredential: ReleasableCredential {}
