import Foundation
import OpenAPIRuntime
import SharedWebCredentials
import SwcredAPI

/// `POST /v1/passkeys/create` and `POST /v1/passkeys/get`: the token's app creates and uses
/// passkeys through ``SharedWebCredentials/createPasskey(optionsJSON:presence:)`` and
/// ``SharedWebCredentials/getPasskey(optionsJSON:presence:)``, behind the same gate as its
/// passwords. The options are handed to the library as the JSON the generated type re-encodes
/// (the library reads them strictly). A registration's answer is the library's JSON, decoded
/// into the generated type; an assertion's, which apps ask for far more often, is copied into it
/// member by member (no JSON written and read again on the way).
///
/// Presence (WebAuthn's UP flag): a `--consent ask` token's request waits for the owner's answer
/// in `swcred consent` (declined: 403 declined, nothing made or signed); a `--consent none`
/// token carries the owner's standing consent.
extension VaultAPI {
    func createPasskey(_ input: Operations.CreatePasskey.Input) async throws -> Operations.CreatePasskey.Output {
        guard case .json(let body) = input.body else { throw APIError.unsupportedMediaType }
        let caller = try await authenticate(permission: .passkeyCreate, claimedApp: nil)
        let options = try Self.json(body)
        let response = try await gated(.passkeyCreate) {
            try await caller.facade.createPasskey(optionsJSON: options) {
                try await presence(caller, operation: .passkeyCreate, rpID: body.rp.id, account: body.user.name)
            }
        }
        return .ok(.init(body: .json(try Self.decode(response.jsonBytes()))))
    }

    func getPasskey(_ input: Operations.GetPasskey.Input) async throws -> Operations.GetPasskey.Output {
        guard case .json(let body) = input.body else { throw APIError.unsupportedMediaType }
        let caller = try await authenticate(
            permission: .passkeyGet, claimedApp: nil, prefetchingRelyingParty: body.rpId)
        let options = try Self.json(body)
        let response = try await gated(.passkeyGet) {
            try await caller.facade.getPasskey(optionsJSON: options, prefetched: caller.prefetchedRelyingParty) {
                try await presence(caller, operation: .passkeyGet, rpID: body.rpId, account: nil)
            }
        }
        return .ok(.init(body: .json(try Self.apiResponse(response))))
    }

    /// The generated type's copy of an assertion.
    private static func apiResponse(
        _ response: AuthenticationResponseJSON
    ) throws -> Components.Schemas.AuthenticationResponseJSON {
        .init(
            id: response.id, rawId: response.rawId,
            response: .init(
                clientDataJSON: response.response.clientDataJSON,
                authenticatorData: response.response.authenticatorData,
                signature: response.response.signature, userHandle: response.response.userHandle),
            authenticatorAttachment: response.authenticatorAttachment,
            clientExtensionResults: try OpenAPIObjectContainer(unvalidatedValue: response.clientExtensionResults),
            _type: response.type)
    }

    /// The owner's answer for a `--consent ask` token, the standing consent of a `--consent none`
    /// one; a decline throws.
    private func presence(
        _ caller: Caller, operation: ConsentBroker.Operation, rpID: String, account: String?
    ) async throws -> AuthenticatorSignals.Presence {
        guard caller.token.consent == .ask else { return .standingConsent }
        guard try await askOwner(caller, operation: operation, domain: rpID, account: account) else {
            throw Self.declinedError
        }
        return .ownerConsented
    }

    private static func json(_ body: some Encodable) throws -> [UInt8] {
        do {
            return [UInt8](try ServiceJSON.encoder.encode(body))
        } catch {
            throw APIError.invalidJSON("the options could not be read")
        }
    }

    private static func decode<T: Decodable>(_ bytes: [UInt8]) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(bytes))
        } catch {
            throw APIError(
                status: .internalServerError, code: "internal",
                message: "the passkey response does not match API/openapi.yaml; see the log")
        }
    }
}
