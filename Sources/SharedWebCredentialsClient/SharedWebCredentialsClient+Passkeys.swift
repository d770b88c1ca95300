import Foundation
import SharedWebCredentials
import SwcredAPI

extension SharedWebCredentialsClient {
    /// Creates a passkey through the service, as
    /// ``SharedWebCredentials/createPasskey(optionsJSON:presence:)``: `PublicKeyCredentialCreationOptionsJSON`
    /// in, `RegistrationResponseJSON` out (JSON text). Consent, when the token asks for it, is the
    /// vault owner's answer on the service's side.
    public func createPasskey(optionsJSON: [UInt8]) async throws -> [UInt8] {
        let options: Components.Schemas.PublicKeyCredentialCreationOptionsJSON = try Self.options(optionsJSON)
        let response = try await connection.perform { try await $0.createPasskey(body: .json(options)).ok.body.json }
        return try Self.json(response)
    }

    /// Signs in with a passkey through the service, as
    /// ``SharedWebCredentials/getPasskey(optionsJSON:presence:)``: `PublicKeyCredentialRequestOptionsJSON`
    /// in, `AuthenticationResponseJSON` out (JSON text).
    public func getPasskey(optionsJSON: [UInt8]) async throws -> [UInt8] {
        let options: Components.Schemas.PublicKeyCredentialRequestOptionsJSON = try Self.options(optionsJSON)
        let response = try await connection.perform { try await $0.getPasskey(body: .json(options)).ok.body.json }
        return try Self.json(response)
    }

    private static func options<T: Decodable>(_ json: [UInt8]) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(json))
        } catch {
            throw SharedWebCredentialsError(
                .invalidInput, "TypeError: the options are not the WebAuthn JSON shape API/openapi.yaml lists")
        }
    }

    private static func json(_ value: some Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return [UInt8](try encoder.encode(value))
    }
}
