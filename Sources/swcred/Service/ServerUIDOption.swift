import ArgumentParser
import Foundation
import SharedWebCredentials

/// `--server-uid`: another user whose service the client trusts, besides its own uid. Before it
/// sends anything on a Unix socket the client requires the socket's directory to be its own and
/// the process listening there to run as its own uid (``ServiceOwnerClient``,
/// ``SharedWebCredentialsClient``); this names the one other uid that may own both, such as the
/// user who runs a service with `--allow-uid` for yours.
struct ServerUIDOption: ParsableArguments {
    @Option(
        name: .customLong("server-uid"),
        help: ArgumentHelp(
            "Also trust a service on a Unix socket that this uid runs (default: $SWCRED_SERVER_UID; unset: only your own uid's).",
            valueName: "uid"))
    var serverUID: String?

    /// The uid named by --server-uid or SWCRED_SERVER_UID, or nil; anything but a uid is exit 2.
    func trustedUID() throws -> uid_t? {
        let named =
            serverUID.map { ($0, "--server-uid") }
            ?? ProcessInfo.processInfo.environment["SWCRED_SERVER_UID"].flatMap {
                $0.isEmpty ? nil : ($0, "SWCRED_SERVER_UID")
            }
        guard let (text, source) = named else { return nil }
        guard !text.isEmpty, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            let uid = uid_t(text), uid != uid_t.max
        else {
            throw SharedWebCredentialsError(
                .invalidInput, "\(source) \"\(text)\" is not a uid: give the service's user as a number (id -u NAME)")
        }
        return uid
    }
}
