import Foundation
import SharedWebCredentials

/// Turns credentials into one export format's bytes: a prefix, one record per credential, a
/// suffix, so that an export streams and memory stays flat.
struct ExportEncoder {
    let format: ExportFormat

    /// The bytes before the first record.
    var prefix: String {
        switch format {
        case .appleCSV: "Title,URL,Username,Password,Notes,OTPAuth\r\n"
        case .chromeCSV: "name,url,username,password,note\r\n"
        case .bitwardenJSON: "{\"encrypted\":false,\"folders\":[],\"items\":[\n"
        case .cxf:
            """
            {"version":{"major":1,"minor":0},"exporterRpId":"swcred","exporterDisplayName":"swcred",\
            "timestamp":\(Int(Date().timeIntervalSince1970)),"accounts":[{"id":"\(Self.randomID())",\
            "username":"","email":"","collections":[],"items":[

            """
        }
    }

    /// The bytes after the last record.
    var suffix: String {
        switch format {
        case .appleCSV, .chromeCSV: ""
        case .bitwardenJSON: "\n]}\n"
        case .cxf: "\n]}]}\n"
        }
    }

    /// What separates two records.
    var separator: String {
        switch format {
        case .appleCSV, .chromeCSV: ""
        case .bitwardenJSON, .cxf: ",\n"
        }
    }

    /// One credential's record. The password is exposed here, and only here: it is what an export is.
    func record(_ credential: Credential) throws -> String {
        let url = "\(credential.site)/"
        let details = credential.details
        let password = credential.password.exposedString()
        switch format {
        case .appleCSV:
            return CSVLine.encode([
                details.label ?? "", url, credential.account, password, details.notes ?? "", details.otpAuth ?? "",
            ])
        case .chromeCSV:
            return CSVLine.encode([details.label ?? "", url, credential.account, password, details.notes ?? ""])
        case .bitwardenJSON:
            return try Self.json([
                "id": UUID().uuidString.lowercased(), "type": 1, "name": details.label ?? "",
                "notes": details.notes ?? NSNull(), "favorite": false, "reprompt": 0, "folderId": NSNull(),
                "organizationId": NSNull(), "collectionIds": NSNull(),
                "creationDate": Self.iso8601(credential.created), "revisionDate": Self.iso8601(credential.modified),
                "login": [
                    "uris": [["match": NSNull(), "uri": url]], "username": credential.account, "password": password,
                    "totp": details.otpAuth ?? NSNull(),
                ] as [String: Any],
            ])
        case .cxf:
            var credentials: [[String: Any]] = [
                [
                    "type": "basic-auth",
                    "username": ["fieldType": "string", "value": credential.account],
                    "password": ["fieldType": "concealed-string", "value": password],
                ]
            ]
            if let notes = details.notes {
                credentials.append(["type": "note", "content": ["fieldType": "string", "value": notes]])
            }
            if let otpAuth = details.otpAuth, let totp = CXFTOTP.credential(fromURI: otpAuth) {
                credentials.append(totp)
            }
            return try Self.json([
                "id": Self.randomID(), "title": details.label ?? "",
                "creationAt": Int(credential.created.timeIntervalSince1970),
                "modifiedAt": Int(credential.modified.timeIntervalSince1970),
                "scope": ["urls": [url], "androidApps": []] as [String: Any], "credentials": credentials,
            ])
        }
    }

    /// One passkey's record (CXF only), its private key included: it is what an export is.
    func record(_ passkey: Passkey) throws -> String {
        precondition(format.carriesPasskeys, "\(format) carries no passkeys")
        return try Self.json(CXFPasskey.item(passkey, id: Self.randomID()))
    }

    private static func json(_ object: [String: Any]) throws -> String {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }

    private static func iso8601(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// A random identifier (a version 4 UUID's 16 bytes) in base64url without padding, as CXF
    /// identifiers are.
    private static func randomID() -> String {
        withUnsafeBytes(of: UUID().uuid) { Data($0) }.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

/// One RFC 4180 line: a field is quoted when it holds a comma, a quote, a line break or leading
/// or trailing space, and its quotes are doubled; lines end in CRLF.
enum CSVLine {
    static func encode(_ fields: [String]) -> String {
        fields.map { field in
            let needsQuotes =
                field.contains { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }
                || field.first == " " || field.last == " "
            return needsQuotes ? "\"\(field.replacingOccurrences(of: "\"", with: "\"\""))\"" : field
        }.joined(separator: ",") + "\r\n"
    }
}
