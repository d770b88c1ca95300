import Foundation

/// Where `swcred serve` listens by default, shared by the service and its clients.
public enum ServiceSocket {
    /// `$XDG_RUNTIME_DIR/swcred/swcred.sock`, else `/tmp/swcred-UID/swcred.sock` (a directory the
    /// service creates 0700 and refuses if another user owns it).
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
            return runtime + "/swcred/swcred.sock"
        }
        return "/tmp/swcred-\(getuid())/swcred.sock"
    }
}
