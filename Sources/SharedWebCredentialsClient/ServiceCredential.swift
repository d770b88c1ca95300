import SharedWebCredentials

/// A credential released through the service: what `POST /v1/credentials/request` returns.
public struct ServiceCredential: Sendable {
    /// The normalised host name.
    public let server: String
    /// The port, only when it is not 443.
    public let port: Int?
    /// The account name.
    public let account: String
    /// The password, in locked memory.
    public let password: SecureBytes
}
