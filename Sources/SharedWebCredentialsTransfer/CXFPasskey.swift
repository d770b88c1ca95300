import Foundation
import SharedWebCredentials

/// A passkey as CXF 1.0 carries it: a credential of type `passkey` with `credentialId`, `rpId`,
/// `username`, `userDisplayName`, `userHandle` and `key` (the private key as base64url PKCS#8).
///
/// CXF asks exporters to leave out passkeys whose signature counter is not zero, and importers
/// to keep the counter at zero: swcred's counter is always zero, so every passkey goes out and
/// comes in as it is.
enum CXFPasskey {
    /// The export item of one passkey: titled with its relying party, scoped to `https://RPID/`.
    static func item(_ passkey: Passkey, id: String) throws -> [String: Any] {
        let key = try passkey.privateKey.pkcs8()
        let created = Int(passkey.created.timeIntervalSince1970)
        return [
            "id": id, "title": passkey.rpID.value, "creationAt": created, "modifiedAt": created,
            "scope": ["urls": ["https://\(passkey.rpID.value)/"], "androidApps": []] as [String: Any],
            "credentials": [
                [
                    "type": "passkey", "credentialId": Base64URL.encode(passkey.credentialID),
                    "rpId": passkey.rpID.value, "username": passkey.userName,
                    "userDisplayName": passkey.userDisplayName, "userHandle": Base64URL.encode(passkey.userHandle),
                    "key": key.withUnsafeBytes { Base64URL.encode($0) },
                ]
            ],
        ]
    }

    /// The passkey of one `passkey` credential of an item, or why it cannot be imported. An
    /// algorithm swcred does not sign with is skipped (and listed); anything malformed is invalid.
    static func element(_ credential: [String: Any], item: [String: Any], location: String) -> ImportElement {
        func invalid(_ problem: String) -> ImportElement {
            .invalid(location: location, problem: "its passkey \(problem)")
        }
        /// The problem with a member, for ``invalid``.
        struct Problem: Error { let text: String }
        func bytes(_ member: String, _ allowed: ClosedRange<Int>) throws(Problem) -> [UInt8] {
            guard let text = credential[member] as? String else {
                throw Problem(text: "has no \"\(member)\" (a base64url text)")
            }
            // CXF's base64url is unpadded; padding some exporters add is forgiven.
            guard let decoded = Base64URL.decode(String(text.prefix { $0 != "=" })) else {
                throw Problem(text: "has a \"\(member)\" that is not base64url")
            }
            guard allowed.contains(decoded.count) else {
                throw Problem(
                    text:
                        "has a \"\(member)\" of \(decoded.count) bytes; swcred keeps \(allowed.lowerBound) to \(allowed.upperBound)"
                )
            }
            return decoded
        }
        let credentialID: [UInt8]
        let userHandle: [UInt8]
        var keyBytes: [UInt8]
        do throws(Problem) {
            credentialID = try bytes("credentialId", 16...1023)
            userHandle = try bytes("userHandle", 1...64)
            keyBytes = try bytes("key", 1...4096)
        } catch {
            return invalid(error.text)
        }
        // The file's text still holds the key; this copy, at least, does not outlive the read,
        // whichever way the read ends.
        defer { keyBytes.withUnsafeMutableBytes { if let base = $0.baseAddress { memset(base, 0, $0.count) } } }
        guard let rpText = credential["rpId"] as? String else { return invalid("has no \"rpId\"") }
        let rpID: RelyingPartyID
        do {
            rpID = try RelyingPartyID(rpText)
        } catch {
            return invalid("cannot be kept: \(error.message)")
        }
        let userName = credential["username"] as? String ?? ""
        let displayName = credential["userDisplayName"] as? String ?? ""
        for (member, text) in [("username", userName), ("userDisplayName", displayName)]
        where text.utf8.count > Credential.maximumFieldBytes {
            return invalid(
                "has a \"\(member)\" of \(text.utf8.count) bytes, longer than the vault's limit of \(Credential.maximumFieldBytes)"
            )
        }
        let privateKey: PasskeyPrivateKey
        let read = keyBytes.withUnsafeBytes { der in
            Result { () throws(PasskeyPrivateKey.PKCS8Error) in try PasskeyPrivateKey(pkcs8: der) }
        }
        switch read {
        case .success(let key):
            privateKey = key
        case .failure(.unsupported(let what)):
            return .skipped(location: location, reason: .unsupportedPasskey("\(rpID.value) with \(what)"))
        case .failure(let error):
            return invalid("cannot be used: \(error)")
        }
        return .passkey(
            location: location,
            Passkey(
                credentialID: credentialID, rpID: rpID, userHandle: userHandle, userName: userName,
                userDisplayName: displayName, privateKey: privateKey,
                created: ImportTime.fromUnixSeconds(item["creationAt"]) ?? Date()),
            modified: ImportTime.fromUnixSeconds(item["modifiedAt"]))
    }
}
