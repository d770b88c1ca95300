import Foundation

/// A JSON object of the protocol, read strictly: the text must be one JSON object, and a field
/// read as a string must be a string (a number, a boolean, `null`, an array or an object there is
/// an error, not an empty string as in KeePassXC's `toString()`).
public struct BrowserJSONObject: @unchecked Sendable {
    /// The members, as `JSONSerialization` reads them.
    let members: [String: Any]

    /// Parses `bytes` as one JSON object.
    ///
    /// - Throws: ``BrowserMessageError/malformedJSON(reason:)`` for text that is not JSON and
    ///   ``BrowserMessageError/notAnObject`` for JSON whose top level is not an object.
    public init(parsing bytes: UnsafeRawBufferPointer) throws(BrowserMessageError) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { throw .malformedJSON(reason: "no text") }
        // No copy: the bytes may be a decrypted message in a buffer that is wiped afterwards.
        try self.init(
            data: Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: bytes.count, deallocator: .none))
    }

    /// Parses `data` as one JSON object.
    init(data: Data) throws(BrowserMessageError) {
        guard !data.isEmpty else { throw .malformedJSON(reason: "no text") }
        let value: Any
        do {
            value = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            throw .malformedJSON(reason: BrowserJSONObject.reason(for: error))
        }
        guard let members = value as? [String: Any] else { throw .notAnObject }
        self.members = members
    }

    /// Parses `bytes` as one JSON object.
    public init(parsing bytes: [UInt8]) throws(BrowserMessageError) {
        try self.init(data: Data(bytes))
    }

    /// Whether the object has no members.
    public var isEmpty: Bool { members.isEmpty }

    /// The string member `name`.
    ///
    /// - Throws: ``BrowserMessageError/missingField(_:)`` when absent and
    ///   ``BrowserMessageError/wrongType(field:expected:)`` when not a string.
    public func string(_ name: String) throws(BrowserMessageError) -> String {
        guard let value = try optionalString(name) else { throw .missingField(name) }
        return value
    }

    /// The string member `name`, or `nil` when it is absent.
    ///
    /// - Throws: ``BrowserMessageError/wrongType(field:expected:)`` when present but not a string.
    public func optionalString(_ name: String) throws(BrowserMessageError) -> String? {
        guard let value = members[name] else { return nil }
        guard let string = value as? String, !(value is NSNumber) else {
            throw .wrongType(field: name, expected: "a string")
        }
        return string
    }

    /// The array-of-objects member `name`, or `nil` when it is absent.
    ///
    /// - Throws: ``BrowserMessageError/wrongType(field:expected:)`` when present but not an array
    ///   of objects.
    public func optionalObjects(_ name: String) throws(BrowserMessageError) -> [BrowserJSONObject]? {
        guard let value = members[name] else { return nil }
        guard let array = value as? [Any] else { throw .wrongType(field: name, expected: "an array of objects") }
        var objects: [BrowserJSONObject] = []
        for element in array {
            guard let object = element as? [String: Any] else {
                throw .wrongType(field: name, expected: "an array of objects")
            }
            objects.append(BrowserJSONObject(members: object))
        }
        return objects
    }

    private init(members: [String: Any]) {
        self.members = members
    }

    /// What went wrong, without the text itself (which may hold a secret).
    private static func reason(for error: Error) -> String {
        let nsError = error as NSError
        if let index = nsError.userInfo["NSJSONSerializationErrorIndex"] as? Int {
            return "not valid JSON (at byte \(index))"
        }
        return "not valid JSON"
    }
}
