import Foundation
import Testing

@testable import TestSupport

/// A vault that cannot be opened because the process has too few file descriptors left (a low
/// `ulimit -n`, or a leak in what runs swcred): SQLite says only "cannot open", which read as a
/// permission problem. swcred names the shortage and what to do, exits 13, and changes nothing.
@Suite("swcred: no file descriptor left to open the vault")
struct DescriptorShortageTests {
    /// Makes every open of a path holding `vault.sqlite` fail with EMFILE, as a process at its
    /// limit of open files sees.
    private static let exhausted = """
        #define _GNU_SOURCE
        #include <dlfcn.h>
        #include <errno.h>
        #include <fcntl.h>
        #include <stdarg.h>
        #include <string.h>
        static int refused(const char *path) { return path && strstr(path, "vault.sqlite") != NULL; }
        static mode_t mode_of(int flags, va_list list) {
            return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(list, int) : 0;
        }
        int open(const char *path, int flags, ...) {
            va_list list; va_start(list, flags); mode_t mode = mode_of(flags, list); va_end(list);
            if (refused(path)) { errno = EMFILE; return -1; }
            int (*next)(const char *, int, ...) = dlsym(RTLD_NEXT, "open");
            return next(path, flags, mode);
        }
        int open64(const char *path, int flags, ...) {
            va_list list; va_start(list, flags); mode_t mode = mode_of(flags, list); va_end(list);
            if (refused(path)) { errno = EMFILE; return -1; }
            int (*next)(const char *, int, ...) = dlsym(RTLD_NEXT, "open64");
            return next(path, flags, mode);
        }
        """

    @Test("out of descriptors: exit 13, the shortage and ulimit named, not a permission; the vault opens after")
    func outOfDescriptors() throws {
        let directory = try TemporaryDirectory()
        let library = try PreloadLibrary.build("exhausted", source: Self.exhausted, in: directory.url.path)
        let vault = directory.path("vault.sqlite")
        let environment = ["SWCRED_PASSPHRASE": "descriptor shortage test passphrase 71"]
        let made = try SwcredProcess.run(
            ["init", "--vault", vault, "--kdf-opslimit", "1", "--kdf-memlimit", "8192"], environment: environment)
        #expect(made.status == 0, "\(made.stderr)")

        let refused = try SwcredProcess.run(
            ["item", "list", "--vault", vault], environment: environment.merging(["LD_PRELOAD": library]) { $1 })
        #expect(refused.status == 13, "\(refused.stderr)")
        #expect(
            refused.stderr.contains(
                "The vault \(vault) could not be opened: this process has too few file descriptors left (too many open files): raise the limit (`ulimit -n`)"
            ), "\(refused.stderr)")
        #expect(!refused.stderr.contains("permission"), "\(refused.stderr)")
        #expect(try SwcredProcess.run(["item", "list", "--vault", vault], environment: environment).status == 0)
    }
}
