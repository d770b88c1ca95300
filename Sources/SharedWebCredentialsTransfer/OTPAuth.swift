import Foundation

/// One-time-password fields as formats hold them: an `otpauth://` URI (Apple, KeePassXC,
/// 1Password), or a bare base32 secret (Bitwarden allows one), which becomes a TOTP URI.
enum OTPAuth {
    /// The `otpauth://` URI for `field`, nil when the field is empty.
    static func uri(_ field: String, account: String) -> String? {
        let trimmed = field.trimmedOfSpaces
        if trimmed.isEmpty { return nil }
        if trimmed.lowercased().hasPrefix("otpauth://") { return trimmed }
        let secret = trimmed.filter { $0 != " " }.uppercased()
        let label = account.addingPercentEncoding(
            withAllowedCharacters: .urlPathAllowed.subtracting(["/", "?", "#", ":"]))
        return "otpauth://totp/\(label ?? "")?secret=\(secret)"
    }
}
