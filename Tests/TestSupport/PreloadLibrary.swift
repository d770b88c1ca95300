import Foundation

/// A C library built at test time for `LD_PRELOAD`, to make a system call of a process under test
/// fail as the kernel would let it (a bind refused, a read interrupted) where nothing real can be
/// made to fail on demand.
public enum PreloadLibrary {
    /// The library could not be built.
    public struct BuildFailed: Error, CustomStringConvertible {
        public let description: String
    }

    /// Compiles `source` with the system's C compiler (or the Swift toolchain's clang) into a
    /// shared library named `name` in the folder `directory`; returns its path.
    public static func build(_ name: String, source: String, in directory: String) throws -> String {
        let sourcePath = directory + "/\(name).c"
        let library = directory + "/\(name).so"
        try source.write(toFile: sourcePath, atomically: true, encoding: .utf8)
        guard
            let compiler = ["/usr/bin/cc", "/opt/swift/usr/bin/clang"].first(
                where: FileManager.default.isExecutableFile)
        else { throw BuildFailed(description: "no C compiler (cc, or the toolchain's clang) to build \(name)") }
        let build = Process()
        build.executableURL = URL(fileURLWithPath: compiler)
        build.arguments = ["-shared", "-fPIC", "-o", library, sourcePath, "-ldl"]
        try build.run()
        build.waitUntilExit()
        guard build.terminationStatus == 0 else { throw BuildFailed(description: "\(compiler) did not build \(name)") }
        // The process under test may run as another user (the user pass's): it must be readable.
        chmod(library, 0o755)
        return library
    }

    /// Makes every `read`, `write`, `send` and `recv` on the standard input and output, and on
    /// sockets, fail once with EINTR before it is let through: a process must retry each.
    public static let interruptingSource = """
        #define _GNU_SOURCE
        #include <dlfcn.h>
        #include <errno.h>
        #include <sys/socket.h>
        #include <sys/stat.h>
        static __thread int calls;
        static int interrupted(int descriptor) {
            struct stat info;
            int watched = descriptor <= 1 || (fstat(descriptor, &info) == 0 && S_ISSOCK(info.st_mode));
            if (!watched || calls++ % 2 != 0) return 0;
            errno = EINTR;
            return 1;
        }
        ssize_t read(int d, void *b, size_t n) {
            static ssize_t (*next)(int, void *, size_t);
            if (!next) next = dlsym(RTLD_NEXT, "read");
            return interrupted(d) ? -1 : next(d, b, n);
        }
        ssize_t write(int d, const void *b, size_t n) {
            static ssize_t (*next)(int, const void *, size_t);
            if (!next) next = dlsym(RTLD_NEXT, "write");
            return interrupted(d) ? -1 : next(d, b, n);
        }
        ssize_t recv(int d, void *b, size_t n, int f) {
            static ssize_t (*next)(int, void *, size_t, int);
            if (!next) next = dlsym(RTLD_NEXT, "recv");
            return interrupted(d) ? -1 : next(d, b, n, f);
        }
        ssize_t send(int d, const void *b, size_t n, int f) {
            static ssize_t (*next)(int, const void *, size_t, int);
            if (!next) next = dlsym(RTLD_NEXT, "send");
            return interrupted(d) ? -1 : next(d, b, n, f);
        }
        """
}
