import Foundation
import SharedWebCredentials

/// How `swcred request` prints released credentials. This is the one place passwords become text.
enum CredentialOutput {
    /// One line per credential: `SERVER[:PORT] TAB ACCOUNT TAB PASSWORD`, each field escaped by
    /// ``DisplayText/appendTabSeparatedField(_:to:)`` (an account holding a newline and tabs could
    /// otherwise forge a line). The password goes from locked memory straight into the buffer.
    static func appendLines(_ credentials: [some ReleasableCredential], to output: inout StandardOutputBuffer) {
        for credential in credentials {
            DisplayText.appendTabSeparatedField(credential.location.utf8, to: &output.bytes)
            output.bytes.append(UInt8(ascii: "\t"))
            DisplayText.appendTabSeparatedField(credential.account.utf8, to: &output.bytes)
            output.bytes.append(UInt8(ascii: "\t"))
            credential.password.withUnsafeBytes { DisplayText.appendTabSeparatedField($0, to: &output.bytes) }
            output.bytes.append(UInt8(ascii: "\n"))
        }
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
