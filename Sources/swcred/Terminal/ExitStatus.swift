import SharedWebCredentials

/// The stable exit codes of `swcred` (DESIGN.md, "Exit codes"). Scripts rely on them.
enum ExitStatus {
    static let success: Int32 = 0
    static let internalError: Int32 = 1
    static let invalidArguments: Int32 = 2

    /// The exit code for a library error.
    static func code(for code: SharedWebCredentialsError.Code) -> Int32 { code.exitStatus }
}
