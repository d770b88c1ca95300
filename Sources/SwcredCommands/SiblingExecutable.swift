import Foundation

/// The executables installed beside `swcred` (`swcred-serve`, `swcred-postgres`), which keep what
/// only some commands need out of the one every command starts.
enum SiblingExecutable {
    /// `name` in the folder of the running executable.
    static func path(_ name: String) -> String {
        let own =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return ((own as NSString).deletingLastPathComponent as NSString).appendingPathComponent(name)
    }
}
