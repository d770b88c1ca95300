import Foundation

/// CXF keeps a TOTP as fields (`secret`, `period`, `digits`, `algorithm`, `issuer`, `username`);
/// the vault keeps an `otpauth://` URI. A URI in the form ``uri(_:account:)`` writes comes back
/// unchanged through CXF; another keeps its meaning (those six fields), not its spelling.
enum CXFTOTP {
    /// The `otpauth://totp/` URI of a CXF `totp` credential.
    static func uri(_ credential: [String: Any], account: String) -> String {
        let secret = string(credential, "secret")
        let issuer = string(credential, "issuer")
        let username = credential["username"] as? String ?? account
        var label = issuer.isEmpty ? username : "\(issuer):\(username)"
        label = label.addingPercentEncoding(withAllowedCharacters: labelAllowed) ?? label
        var query = [("secret", secret)]
        if !issuer.isEmpty { query.append(("issuer", issuer)) }
        if let algorithm = credential["algorithm"] as? String { query.append(("algorithm", algorithm.uppercased())) }
        if let digits = credential["digits"] as? Int { query.append(("digits", String(digits))) }
        if let period = credential["period"] as? Int { query.append(("period", String(period))) }
        let encoded = query.map { "\($0)=\($1.addingPercentEncoding(withAllowedCharacters: valueAllowed) ?? $1)" }
        return "otpauth://totp/\(label)?\(encoded.joined(separator: "&"))"
    }

    /// The CXF `totp` credential for an `otpauth://totp/` URI, nil for another kind (HOTP, Steam…).
    static func credential(fromURI uri: String) -> [String: Any]? {
        guard let components = URLComponents(string: uri), components.scheme?.lowercased() == "otpauth",
            components.host?.lowercased() == "totp"
        else { return nil }
        let items = Dictionary(
            (components.queryItems ?? []).map { ($0.name.lowercased(), $0.value ?? "") },
            uniquingKeysWith: { first, _ in first })
        guard let secret = items["secret"], !secret.isEmpty else { return nil }
        let label = String(components.path.dropFirst())
        let username = label.split(separator: ":", maxSplits: 1).last.map(String.init) ?? ""
        var credential: [String: Any] = [
            "type": "totp", "secret": secret, "username": username,
            "period": Int(items["period"] ?? "") ?? 30, "digits": Int(items["digits"] ?? "") ?? 6,
            "algorithm": (items["algorithm"] ?? "SHA1").lowercased(),
        ]
        if let issuer = items["issuer"] { credential["issuer"] = issuer }
        return credential
    }

    private static let labelAllowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~:@"))
    private static let valueAllowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
}
