import Foundation
import SharedWebCredentials

/// How `swcred request` prints released credentials. This is the one place passwords become text.
enum CredentialOutput {
    /// One line per credential: `SERVER[:PORT] TAB ACCOUNT TAB PASSWORD`.
    static func lines(_ credentials: [some ReleasableCredential]) -> String {
        credentials.map { "\($0.location)\t\($0.account)\t\($0.password.exposedString())\n" }.joined()
    }

    /// `[{"server": ..., "account": ..., "password": ..., "port": 8443}]`, port only when not 443.
    static func json(_ credentials: [some ReleasableCredential]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let released = credentials.map {
            Released(server: $0.server, account: $0.account, password: $0.password.exposedString(), port: $0.port)
        }
        return String(decoding: try encoder.encode(released), as: UTF8.self) + "\n"
    }
}

/// One released credential in `request --json`.
private struct Released: Encodable {
    let server: String
    let account: String
    let password: String
    let port: Int?
}
