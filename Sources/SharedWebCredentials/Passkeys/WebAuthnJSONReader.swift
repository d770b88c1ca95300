/// Reads one JSON object of WebAuthn options strictly: each member of the right type, binary
/// members as canonical unpadded base64url, and no member the shape does not define.
struct WebAuthnJSONReader {
    private let members: [(key: String, value: JSONValue)]
    /// Where the object is, for messages (`options`, `options.user`).
    let path: String

    /// The object `value`, or `TypeError` when it is not one.
    init(_ value: JSONValue, path: String) throws(WebAuthnError) {
        guard case .object(let members) = value else {
            throw .type("\(path) must be an object, not \(value.typeName)")
        }
        self.members = members
        self.path = path
    }

    /// The whole text as I-JSON (no repeated member), then its top-level object.
    static func parse(_ json: [UInt8], path: String) throws(WebAuthnError) -> WebAuthnJSONReader {
        let value: JSONValue
        do {
            value = try IJSON.parse(json)
        } catch {
            throw .type("\(path) is not valid JSON: \(error.message)")
        }
        return try WebAuthnJSONReader(value, path: path)
    }

    /// Refuses any member not in `known` (TypeError naming it).
    func requireOnly(_ known: Set<String>) throws(WebAuthnError) {
        if let unknown = members.first(where: { !known.contains($0.key) }) {
            throw .type(
                "\(path) has the unknown member \"\(unknown.key)\"; known: \(known.sorted().joined(separator: ", "))")
        }
    }

    /// The member's value; nil when absent (a JSON `null` counts as absent, as WebIDL reads it).
    func optional(_ key: String) -> JSONValue? {
        guard let value = members.last(where: { $0.key == key })?.value, value != .null else { return nil }
        return value
    }

    func required(_ key: String) throws(WebAuthnError) -> JSONValue {
        guard let value = optional(key) else { throw .type("\(path).\(key) is required") }
        return value
    }

    func string(_ key: String) throws(WebAuthnError) -> String? {
        guard let value = optional(key) else { return nil }
        guard case .string(let text) = value else {
            throw .type("\(path).\(key) must be a string, not \(value.typeName)")
        }
        return text
    }

    func requiredString(_ key: String) throws(WebAuthnError) -> String {
        guard let text = try string(key) else { throw .type("\(path).\(key) is required") }
        return text
    }

    func bool(_ key: String) throws(WebAuthnError) -> Bool? {
        guard let value = optional(key) else { return nil }
        guard case .bool(let flag) = value else {
            throw .type("\(path).\(key) must be true or false, not \(value.typeName)")
        }
        return flag
    }

    /// An integer member within `range`.
    func integer(_ key: String, in range: ClosedRange<Int>) throws(WebAuthnError) -> Int? {
        guard let value = optional(key) else { return nil }
        guard case .number(let number) = value, number == number.rounded(), Double(range.lowerBound) <= number,
            number <= Double(range.upperBound)
        else {
            throw .type("\(path).\(key) must be an integer in \(range.lowerBound)...\(range.upperBound)")
        }
        return Int(number)
    }

    func requiredBytes(_ key: String) throws(WebAuthnError) -> [UInt8] {
        try Self.bytes(try requiredString(key), at: "\(path).\(key)")
    }

    func array(_ key: String) throws(WebAuthnError) -> [JSONValue]? {
        guard let value = optional(key) else { return nil }
        guard case .array(let items) = value else {
            throw .type("\(path).\(key) must be an array, not \(value.typeName)")
        }
        return items
    }

    func strings(_ key: String) throws(WebAuthnError) -> [String] {
        var result: [String] = []
        for (index, item) in (try array(key) ?? []).enumerated() {
            guard case .string(let text) = item else { throw .type("\(path).\(key)[\(index)] must be a string") }
            result.append(text)
        }
        return result
    }

    func object(_ key: String) throws(WebAuthnError) -> WebAuthnJSONReader? {
        guard let value = optional(key) else { return nil }
        return try WebAuthnJSONReader(value, path: "\(path).\(key)")
    }

    /// Unpadded base64url text as bytes, or `EncodingError`.
    static func bytes(_ text: String, at path: String) throws(WebAuthnError) -> [UInt8] {
        guard let bytes = Base64URL.decode(text) else {
            throw .encoding("\(path) is not unpadded base64url (A-Z a-z 0-9 - _, no padding)")
        }
        return bytes
    }
}
