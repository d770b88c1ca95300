import SharedWebCredentials

/// The stable exit codes of `swcred` (DESIGN.md, "Exit codes"). Scripts rely on them.
enum ExitStatus {
    static let success: Int32 = 0
    static let internalError: Int32 = 1
    static let invalidArguments: Int32 = 2

    /// The exit code for a library error.
    static func code(for code: SharedWebCredentialsError.Code) -> Int32 {
        switch code {
        case .internalError: 1
        case .invalidInput: 2
        case .missingEntitlement: 3
        case .notApproved: 4
        case .itemNotFound: 5
        case .declined: 6
        case .vaultLocked: 7
        case .vaultNotFound, .vaultExists: 8
        case .integrityFailure: 9
        case .networkFailure: 10
        case .vaultBusy: 11
        case .neverSave: 12
        case .storageFailure: 13
        }
    }
}
