import Foundation
import SharedWebCredentials

// The JSON bodies of the API (API/openapi.yaml). Field names follow the CLI's JSON shapes.

/// `POST /v1/credentials/request`.
struct CredentialRequestBody: Decodable {
    let app: String?
    let domain: String?
    let account: String?
    let includeShared: Bool?

    enum CodingKeys: String, CodingKey {
        case app, domain, account
        case includeShared = "include_shared"
    }
}

/// `PUT /v1/credentials`. `confirmed: false` asks what the change would be without making it.
struct CredentialSaveBody: Decodable {
    let app: String?
    let domain: String
    let account: String
    let password: String
    let confirmed: Bool?
}

/// `DELETE /v1/credentials`. `confirmed: false` asks what the change would be without making it.
struct CredentialDeleteBody: Decodable {
    let app: String?
    let domain: String
    let account: String
    let confirmed: Bool?
}

/// `POST /v1/passwords/generate`.
struct GenerateBody: Decodable {
    let app: String?
    let domain: String?
    let rules: String?
    let style: String?
    let count: Int?
}

/// `POST /v1/unlock`: the passphrase, or the path of the key file of a key-file vault.
struct UnlockBody: Decodable {
    let passphrase: String?
    let keyFile: String?

    enum CodingKeys: String, CodingKey {
        case passphrase
        case keyFile = "key_file"
    }
}

/// A released credential, as `swcred request --json` prints it.
struct ReleasedCredential: Encodable {
    let server: String
    let account: String
    let password: String
    let port: Int?

    init(_ credential: Credential) {
        server = credential.server
        account = credential.account
        password = credential.password.exposedString()
        port = credential.port
    }
}

/// A generated password, as `swcred generate --json` prints it.
struct GeneratedPasswordBody: Encodable {
    let password: String
    let style: String
    let entropyBits: Double

    init(_ generated: GeneratedPassword) {
        password = generated.password
        style = generated.style.rawValue
        entropyBits = generated.entropyBits
    }

    enum CodingKeys: String, CodingKey {
        case password, style
        case entropyBits = "entropy_bits"
    }
}

/// The outcome of a change: `added`, `updated`, `deleted`, `unchanged`, `nothing-to-delete`, or
/// for `confirmed: false` a real change's `needs-confirmation` with the `change` it would make.
struct OutcomeBody: Encodable {
    let outcome: String
    var change: String? = nil
}

/// `GET /v1/health`.
struct HealthBody: Encodable {
    let version: String
    let locked: Bool
}
