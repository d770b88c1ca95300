/// Why a message of the protocol could not be read: its JSON, a field, or its action. The
/// descriptions name the field and the rule, never a value that could be a secret.
public enum BrowserMessageError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The text is not JSON.
    case malformedJSON(reason: String)
    /// The JSON is not an object.
    case notAnObject
    /// A required field is absent (or an empty string where a value is required).
    case missingField(String)
    /// A field has the wrong JSON type.
    case wrongType(field: String, expected: String)
    /// A field has the right type but a value the protocol does not allow.
    case invalidValue(field: String, reason: String)

    public var description: String {
        switch self {
        case .malformedJSON(let reason): return "the message is \(reason)"
        case .notAnObject: return "the message is JSON but not an object"
        case .missingField(let field): return "the message has no \(field)"
        case .wrongType(let field, let expected): return "\(field) must be \(expected)"
        case .invalidValue(let field, let reason): return "\(field) \(reason)"
        }
    }
}
