/// One finding about an apple-app-site-association file: a stable code scripts can match on and
/// a message that says what to fix.
public struct AASADiagnostic: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Whether the finding makes the file unusable or is advice.
    public enum Severity: String, Sendable, Codable {
        /// The file cannot approve anything until this is fixed.
        case error
        /// The file works, but something is likely a mistake.
        case warning
    }

    /// A stable identifier such as `bom`, `trailing-comma` or `apps-not-array`.
    public let code: String
    /// What is wrong and what to do about it.
    public let message: String
    /// Error or warning.
    public let severity: Severity

    /// Creates an error finding.
    public static func error(_ code: String, _ message: String) -> AASADiagnostic {
        AASADiagnostic(code: code, message: message, severity: .error)
    }

    /// Creates a warning finding.
    public static func warning(_ code: String, _ message: String) -> AASADiagnostic {
        AASADiagnostic(code: code, message: message, severity: .warning)
    }

    public var description: String { "\(severity.rawValue): [\(code)] \(message)" }

    private enum CodingKeys: String, CodingKey { case code, message }

    public init(code: String, message: String, severity: Severity) {
        self.code = code
        self.message = message
        self.severity = severity
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            code: try container.decode(String.self, forKey: .code),
            message: try container.decode(String.self, forKey: .message), severity: .error)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(code, forKey: .code)
        try container.encode(message, forKey: .message)
    }
}
