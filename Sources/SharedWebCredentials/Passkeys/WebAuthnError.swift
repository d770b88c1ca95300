import SharedWebCredentialsCore

/// A refused passkey operation, named as WebAuthn names it (the `DOMException` a browser would
/// throw), with the library's stable ``SharedWebCredentialsError/Code`` for the exit status.
///
/// | name | when | code (exit) |
/// |---|---|---|
/// | `NotSupportedError` | no algorithm of `pubKeyCredParams` is supported | invalid-input (2) |
/// | `InvalidStateError` | a credential of `excludeCredentials` exists for the RP | invalid-input (2) |
/// | `NotAllowedError` | no credential matches; `userVerification: "required"` cannot be met; the challenge is shorter than 16 bytes | item-not-found (5), declined (6), invalid-input (2) |
/// | `SecurityError` | the RP ID is not a valid domain, is an IP address or a public suffix; or the app is not approved for it | invalid-input (2); not-approved (4) |
/// | `EncodingError` | a base64url member does not decode | invalid-input (2) |
/// | `TypeError` | a member is missing, of the wrong type, or unknown | invalid-input (2) |
///
/// `InvalidStateError` maps to invalid-input (HTTP 400, exit 2): DESIGN.md's exit codes have no
/// "such an item already exists" other than 12, which stands for a never-save marker, and giving
/// 12 a second meaning would make scripts that read it wrong. The error body and message carry
/// the WebAuthn name, which is what a WebAuthn client maps to its `DOMException`.
public struct WebAuthnError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The WebAuthn error names this library uses; the raw value is the `DOMException` name.
    public enum Name: String, Sendable, CaseIterable {
        /// No requested algorithm is supported.
        case notSupported = "NotSupportedError"
        /// A credential the request excludes already exists.
        case invalidState = "InvalidStateError"
        /// The operation cannot be allowed: no credential, no user verification, a weak challenge.
        case notAllowed = "NotAllowedError"
        /// The relying party is not one the caller may act for.
        case security = "SecurityError"
        /// A base64url value does not decode.
        case encoding = "EncodingError"
        /// The options are not the expected JSON shape.
        case type = "TypeError"
    }

    /// The WebAuthn name of the failure.
    public let name: Name
    /// The library's category, which decides the exit status (DESIGN.md's table).
    public let code: SharedWebCredentialsError.Code
    /// What went wrong and what to do; never contains secrets or key material.
    public let message: String

    /// An error with a name, a code and a message.
    public init(_ name: Name, _ code: SharedWebCredentialsError.Code, _ message: String) {
        self.name = name
        self.code = code
        self.message = message
    }

    /// The same failure as the library's one error type, the message prefixed with the name.
    public var sharedWebCredentialsError: SharedWebCredentialsError {
        SharedWebCredentialsError(code, description)
    }

    public var description: String { "\(name.rawValue): \(message)" }

    static func type(_ message: String) -> WebAuthnError { WebAuthnError(.type, .invalidInput, message) }
    static func encoding(_ message: String) -> WebAuthnError { WebAuthnError(.encoding, .invalidInput, message) }
}
