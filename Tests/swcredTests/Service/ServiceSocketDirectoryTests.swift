import Foundation
import Testing

@testable import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The socket's directory, when it is the user's own but others may enter or list it (made
/// beforehand with a default umask): `swcred serve` makes it private (0700) before it binds, so
/// that no other user reaches the socket through it.
@Suite("swcred serve: the user's own socket directory made private")
struct ServiceSocketDirectoryTests {
    @Test(
        "a socket directory of the user's with mode 0755, 0710 or 0701 (others' search bit alone) is 0700 once the service listens",
        arguments: [0o755, 0o710, 0o701])
    func directoryMadePrivate(mode: Int) async throws {
        try await ServiceFixture.with { fixture in
            let directory = (fixture.socketPath as NSString).deletingLastPathComponent
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
            #expect(chmod(directory, mode_t(mode)) == 0)
            try fixture.start()
            var info = stat()
            #expect(stat(directory, &info) == 0)
            #expect(info.st_mode & 0o7777 == 0o700, "mode \(String(info.st_mode & 0o7777, radix: 8))")
            let service = try fixture.running
            let status = service.stop()
            #expect(status == 0, "exit \(status): \(service.log)")
        }
    }
}
