/// What reading one Digital Asset Links statement list found: its well-formed statements, the
/// include statements to follow, and every finding (errors make the whole list unusable;
/// warnings name statements that were skipped or that are likely mistakes).
public struct AssetLinksReport: Sendable {
    /// The largest list read (128 KiB, the cap of apple-app-site-association files too).
    public static let maximumSize = 128 * 1024

    /// The well-formed statements, in order.
    public let statements: [AssetStatement]
    /// The URLs of the well-formed include statements (HTTPS only), in order.
    public let includes: [String]
    /// Every finding, in the order found.
    public let diagnostics: [AASADiagnostic]

    /// Creates a report.
    public init(statements: [AssetStatement], includes: [String], diagnostics: [AASADiagnostic]) {
        self.statements = statements
        self.includes = includes
        self.diagnostics = diagnostics
    }

    /// Whether the list could be read at all (no error).
    public var isValid: Bool { !diagnostics.contains { $0.severity == .error } }
    /// The errors.
    public var errors: [AASADiagnostic] { diagnostics.filter { $0.severity == .error } }
    /// The warnings.
    public var warnings: [AASADiagnostic] { diagnostics.filter { $0.severity == .warning } }
}
