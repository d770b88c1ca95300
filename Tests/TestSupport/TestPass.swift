import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The pass of `Scripts/test` this process runs in (`SWCRED_TEST_PASS`): the user-facing flows run
/// as an ordinary uid ("user"), and only the tests that act as another uid run as root ("root").
/// Unset when `swift test` is run by hand.
public enum TestPass {
    /// "user", "root", or nil outside `Scripts/test`.
    public static var current: String? { ProcessInfo.processInfo.environment["SWCRED_TEST_PASS"] }

    /// Throws when this is `Scripts/test`'s user pass and yet the process runs as root: the flows
    /// a user meets would be tested with root's permission override, which hid a service that
    /// could not start for anyone else (issue 49).
    public static func requireOrdinaryUserInUserPass() throws {
        guard current == "user", getuid() == 0 || geteuid() == 0 else { return }
        throw RunsAsRoot()
    }

    /// The user pass found itself running as root.
    public struct RunsAsRoot: Error, CustomStringConvertible {
        public var description: String {
            "Scripts/test's user pass runs as root: the user-facing flows must run as an ordinary uid (Scripts/test runs them as swcred-test; run Scripts/bootstrap)"
        }
    }
}
