import Crypto

/// The app a passkey operation is for, as swcred knows it from its registration (never from the
/// request): it decides the `origin` of `clientDataJSON`, as the operating system does.
public enum PasskeyClient: Sendable, Equatable {
    /// An Apple app (its application identifier): origin `https://` + the RP ID.
    case apple(ApplicationIdentifier)
    /// An Android app (`android:PACKAGE`) with the SHA-256 fingerprint of the signing certificate
    /// it is registered with: origin `android:apk-key-hash:` + unpadded base64url of that digest.
    case android(package: String, signingCertificate: CertificateFingerprint)

    /// The client for a registered app.
    ///
    /// - Parameters:
    ///   - app: the app, as registered (an Android app with its signing certificates).
    ///   - signingCertificate: for an Android app, the certificate it is signed with; may be
    ///     omitted when the registration lists exactly one. Must be one the registration lists.
    /// - Throws: invalid-input when an Android app's certificate is missing or not registered;
    ///   or when an Apple app is given a certificate.
    public init(_ app: ApplicationIdentifier, signingCertificate: CertificateFingerprint? = nil) throws {
        switch app.platform {
        case .apple:
            guard signingCertificate == nil else {
                throw SharedWebCredentialsError(.invalidInput, "an Apple app has no signing-certificate origin")
            }
            self = .apple(app)
        case .android:
            let registered = app.signingCertificates
            guard let certificate = signingCertificate ?? (registered.count == 1 ? registered[0] : nil) else {
                throw SharedWebCredentialsError(
                    .invalidInput, "name the signing certificate of \(app): it has \(registered.count) registered")
            }
            guard registered.isEmpty || registered.contains(certificate) else {
                throw SharedWebCredentialsError(
                    .invalidInput, "the certificate \(certificate) is not one registered for \(app)")
            }
            self = .android(package: app.bundleIdentifier, signingCertificate: certificate)
        }
    }

    /// The app's name for messages (`ABCDE12345.com.example.app`, `android:com.example`).
    public var appName: String {
        switch self {
        case .apple(let identifier): identifier.description
        case .android(let package, _): "android:\(package)"
        }
    }

    /// The origin the operating system writes for this app and RP ID.
    public func origin(for rpID: RelyingPartyID) -> String {
        switch self {
        case .apple: "https://" + rpID.value
        case .android(_, let certificate): "android:apk-key-hash:" + Base64URL.encode(certificate.bytes)
        }
    }
}

/// `clientDataJSON` as the platform builds it (WebAuthn §5.8.1.1's serialization): the members
/// `type`, `challenge`, `origin` and `crossOrigin` in that order, each string written by the
/// spec's CCDToString (only `"`, `\` and control characters escaped, the rest as UTF-8).
public enum ClientData {
    /// The ceremony a client data belongs to.
    public enum Ceremony: String, Sendable {
        /// Registration (`navigator.credentials.create`).
        case create = "webauthn.create"
        /// Authentication (`navigator.credentials.get`).
        case get = "webauthn.get"
    }

    /// The exact bytes of `clientDataJSON`.
    ///
    /// - Parameters:
    ///   - ceremony: create or get.
    ///   - challenge: the relying party's challenge bytes (written as unpadded base64url).
    ///   - origin: from ``PasskeyClient/origin(for:)``, never from the request.
    public static func json(ceremony: Ceremony, challenge: [UInt8], origin: String) -> [UInt8] {
        var text = "{\"type\":" + quoted(ceremony.rawValue)
        text += ",\"challenge\":" + quoted(Base64URL.encode(challenge))
        text += ",\"origin\":" + quoted(origin)
        text += ",\"crossOrigin\":false}"
        return Array(text.utf8)
    }

    /// CCDToString: a JSON string with only `"`, `\` and U+0000-U+001F escaped.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// SHA-256 of `clientDataJSON`, which the assertion signs after the authenticator data.
    public static func hash(_ json: [UInt8]) -> [UInt8] {
        Array(SHA256.hash(data: json))
    }
}
