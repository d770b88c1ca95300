import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Scripts/test runs the user-facing flows as an ordinary uid with a HOME and an XDG_RUNTIME_DIR
/// of its own (issue 49): root's permission override hid a `swcred serve --browser` that could not
/// start for anyone else. This fails if the user pass ever runs as root again.
@Suite("Scripts/test's passes")
struct TestPassTests {
    @Test(
        "the user pass runs as an ordinary uid, with its own 0700 HOME and XDG_RUNTIME_DIR",
        .enabled(if: TestPass.current == "user", "only in Scripts/test's user pass"))
    func userPassIsAnOrdinaryUser() throws {
        #expect(getuid() != 0 && geteuid() != 0, "the user pass runs as root")
        #expect(throws: Never.self) { try TestPass.requireOrdinaryUserInUserPass() }
        for variable in ["HOME", "XDG_RUNTIME_DIR"] {
            let path = try #require(ProcessInfo.processInfo.environment[variable], "\(variable) is not set")
            var info = stat()
            #expect(lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR, "\(variable)=\(path)")
            #expect(info.st_uid == getuid(), "\(variable)=\(path) belongs to uid \(info.st_uid)")
            #expect(info.st_mode & 0o077 == 0, "\(variable)=\(path) has mode \(String(info.st_mode & 0o777, radix: 8))")
        }
    }

    @Test(
        "the root pass runs as root",
        .enabled(if: TestPass.current == "root", "only in Scripts/test's root pass"))
    func rootPassIsRoot() {
        #expect(getuid() == 0)
    }
}
