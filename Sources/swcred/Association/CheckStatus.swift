import SharedWebCredentials

/// The exit status and one-line summary shared by `aasa check` and `dal check`: every finding has
/// been printed already, so the summary repeats none about the file.
enum CheckStatus {
    /// 10 when the site could not be asked, 4 when `--app` is not approved, 2 when the file is
    /// unusable, nil (exit 0) otherwise.
    static func code(unreachable: Bool, approved: Bool?, valid: Bool) -> SharedWebCredentialsError.Code? {
        unreachable ? .networkFailure : approved == false ? .notApproved : !valid ? .invalidInput : nil
    }

    /// The line printed with the exit status in text mode.
    static func summary(
        _ status: SharedWebCredentialsError.Code, location: String, app: ApplicationIdentifier?,
        firstError: AASADiagnostic?, kind: String
    ) -> String {
        switch status {
        case .networkFailure: firstError?.message ?? "could not fetch \(location)"
        case .notApproved: "\(location) does not approve \(app.map(\.description) ?? ""); see above"
        default: "\(location) is not a usable \(kind); see the errors above"
        }
    }
}
