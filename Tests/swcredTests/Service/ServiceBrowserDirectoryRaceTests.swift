import Foundation
import Testing

@testable import TestSupport

/// `swcred serve --browser` creates the browser socket's missing directories; another process
/// (KeePassXC, a second service) may make the same directory between swcred's making its parent
/// and making it. That directory, private and the user's, is taken as it is and served in.
@Suite("swcred serve --browser: the socket's directory made by another process meanwhile")
struct ServiceBrowserDirectoryRaceTests {
    /// Makes a `mkdir` of a path ending in `/inner` that succeeds look like one that lost a race:
    /// the directory is made (0700, as the other process would), and EEXIST is returned.
    private static let raced = """
        #define _GNU_SOURCE
        #include <dlfcn.h>
        #include <errno.h>
        #include <string.h>
        #include <sys/stat.h>
        int mkdir(const char *path, mode_t mode) {
            int (*next)(const char *, mode_t) = dlsym(RTLD_NEXT, "mkdir");
            size_t length = strlen(path);
            int raced = length >= 6 && strcmp(path + length - 6, "/inner") == 0;
            if (next(path, mode) != 0) return -1;
            if (!raced) return 0;
            chmod(path, 0700);
            errno = EEXIST;
            return -1;
        }
        """

    @Test("a directory made by another process between swcred's two mkdirs is served in")
    func directoryRaced() async throws {
        try await ServiceFixture.with { fixture in
            let library = try PreloadLibrary.build(
                "raced-mkdir", source: Self.raced, in: fixture.gated.directory.url.path)
            let browserSocket = fixture.gated.directory.path("browser/inner/kpxc.sock")
            try fixture.start(
                ["--browser"], environment: ["SWCRED_BROWSER_SOCKET": browserSocket, "LD_PRELOAD": library])
            let service = try fixture.running
            var info = stat()
            #expect(lstat(browserSocket, &info) == 0 && info.st_mode & S_IFMT == S_IFSOCK, "\(service.log)")
            #expect(service.stop() == 0, "\(service.log)")
        }
    }
}
