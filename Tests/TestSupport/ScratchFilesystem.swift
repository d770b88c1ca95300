import Foundation

/// A small tmpfs mounted on a fresh temporary directory, to test a full disk and a read-only
/// file system for real. Needs the right to mount (root with CAP_SYS_ADMIN); tests that use it
/// check ``isAvailable`` first. Unmounted when released.
public final class ScratchFilesystem: Sendable {
    /// The mount point.
    public let directory: TemporaryDirectory

    /// Whether this process may mount a tmpfs (probed once, by mounting and unmounting one).
    public static let isAvailable: Bool = {
        guard let probe = try? TemporaryDirectory(prefix: "swcred-mount-probe") else { return false }
        guard run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", probe.url.path]) else { return false }
        return run(["umount", probe.url.path])
    }()

    /// Mounts a tmpfs of `kibibytes` KiB (mode 0700).
    public init(kibibytes: Int) throws {
        directory = try TemporaryDirectory(prefix: "swcred-tmpfs")
        guard
            Self.run(["mount", "-t", "tmpfs", "-o", "size=\(kibibytes)k,mode=0700", "tmpfs", directory.url.path])
        else { throw MountFailure(message: "cannot mount a tmpfs on \(directory.url.path)") }
    }

    /// A path inside the file system.
    public func path(_ name: String) -> String { directory.path(name) }

    /// Remounts the file system read-only (`readOnly`) or read-write.
    public func remount(readOnly: Bool) throws {
        guard Self.run(["mount", "-o", readOnly ? "remount,ro" : "remount,rw", directory.url.path]) else {
            throw MountFailure(message: "cannot remount \(directory.url.path)")
        }
    }

    /// Fills the file system completely with a file named `name`; returns its path.
    @discardableResult
    public func fill(name: String = "filler") -> String {
        let filler = path(name)
        FileManager.default.createFile(atPath: filler, contents: nil)
        guard let handle = FileHandle(forWritingAtPath: filler) else { return filler }
        let block = Data(count: 4096)
        while (try? handle.write(contentsOf: block)) != nil {}
        let byte = Data(count: 1)
        while (try? handle.write(contentsOf: byte)) != nil {}
        try? handle.close()
        return filler
    }

    deinit {
        _ = Self.run(["umount", "-l", directory.url.path])
    }

    private static func run(_ arguments: [String]) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    /// Mounting or remounting failed.
    public struct MountFailure: Error, CustomStringConvertible {
        /// What failed.
        public let message: String
        public var description: String { message }
    }
}
