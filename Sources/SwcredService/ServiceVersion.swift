/// The version the service reports at `GET /v1/health`.
public enum ServiceVersion {
    /// The swcred version.
    public static let current = "0.1.0"
}
