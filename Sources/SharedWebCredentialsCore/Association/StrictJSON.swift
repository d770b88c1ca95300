/// A JSON value as read by ``StrictJSONParser``.
public indirect enum JSONValue: Sendable, Equatable {
    case object([(key: String, value: JSONValue)])
    case array([JSONValue])
    case string(String)
    case number(Double)
    case bool(Bool)
    case null

    /// The member named `key` of an object (the last one if the key repeats).
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last { $0.key == key }?.value
    }

    /// A short name of the value's type for messages: "an object", "a string", ...
    public var typeName: String {
        switch self {
        case .object: "an object"
        case .array: "an array"
        case .string: "a string"
        case .number: "a number"
        case .bool: "a boolean"
        case .null: "null"
        }
    }

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.object(let a), .object(let b)): a.map(\.key) == b.map(\.key) && a.map(\.value) == b.map(\.value)
        case (.array(let a), .array(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.number(let a), .number(let b)): a == b
        case (.bool(let a), .bool(let b)): a == b
        case (.null, .null): true
        default: false
        }
    }
}

/// A strict RFC 8259 JSON parser that says exactly what is wrong: comments, trailing commas,
/// single quotes, typographic quotes, invisible spaces and other habits of editors are errors with
/// a line and column. A member name repeated in one object is kept (the last one wins, as in
/// Apple's parser) and reported as a finding.
struct StrictJSONParser {
    /// A syntax error: what is wrong, where, and a stable code (`comment`, `trailing-comma`,
    /// `invalid-json`).
    struct SyntaxError: Error {
        let code: String
        let message: String
        /// The repeated member name, for `duplicate-key`.
        var member: String? = nil
    }

    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0
    /// Member names repeated within one object (code `duplicate-key`).
    private var duplicates: [SyntaxError] = []
    private static let maximumDepth = 64

    /// Parses `bytes` (already known to be UTF-8 without a byte-order mark) as one JSON value;
    /// also returns the repeated member names found, which do not stop parsing.
    static func parse(_ bytes: [UInt8]) throws(SyntaxError) -> (value: JSONValue, duplicates: [SyntaxError]) {
        var parser = StrictJSONParser(bytes: bytes)
        parser.skipWhitespace()
        if parser.index == bytes.count { throw SyntaxError(code: "empty", message: "the file is empty") }
        let value = try parser.parseValue()
        parser.skipWhitespace()
        if parser.index < bytes.count { throw parser.unexpected("unexpected text after the JSON value") }
        return (value, parser.duplicates)
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private func position() -> String {
        position(at: index)
    }

    private func position(at index: Int) -> String {
        var line = 1
        var column = 1
        for byte in bytes[..<min(index, bytes.count)] {
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return "line \(line), column \(column)"
    }

    private func error(_ problem: String, code: String = "invalid-json") -> SyntaxError {
        SyntaxError(code: code, message: "invalid JSON at \(position()): \(problem)")
    }

    /// The error for an unexpected character: `problem`, unless the character is one that editors
    /// and word processors put in by themselves (typographic quotes, non-breaking or other
    /// Unicode spaces, invisible marks), which is named with its code point and the fix.
    private func unexpected(_ problem: String) -> SyntaxError {
        guard let byte = current, byte >= 0x80,
            let scalar = String(decoding: bytes[index..<min(index + 4, bytes.count)], as: UTF8.self)
                .unicodeScalars.first
        else { return error(problem) }
        let name = scalar.codePointDescription
        switch scalar.value {
        case 0x2018, 0x2019, 0x201A, 0x201B, 0x201C, 0x201D, 0x201E, 0x201F, 0x00AB, 0x00BB, 0x2032, 0x2033:
            return error(
                "\(name) is a typographic quote; JSON strings and member names need the straight double quote \" (U+0022). Turn off smart quotes in the editor and retype it",
                code: "typographic-quote")
        default:
            if scalar.properties.isWhitespace || scalar.properties.isDefaultIgnorableCodePoint {
                return error(
                    "\(name) is an invisible character that JSON does not allow outside strings; delete it or replace it with a plain space (U+0020)",
                    code: "invisible-character")
            }
            return error("\(name) is not allowed here: \(problem)")
        }
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
    }

    private mutating func parseValue() throws(SyntaxError) -> JSONValue {
        skipWhitespace()
        guard let byte = current else { throw error("the file ends where a value was expected") }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try parseLiteral("true", .bool(true))
        case UInt8(ascii: "f"): return try parseLiteral("false", .bool(false))
        case UInt8(ascii: "n"): return try parseLiteral("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        case UInt8(ascii: "/"): throw error("comments are not allowed in JSON; remove them", code: "comment")
        case UInt8(ascii: "'"): throw error("strings must use double quotes, not single quotes")
        default: throw unexpected("unexpected character where a value was expected")
        }
    }

    private mutating func enter() throws(SyntaxError) {
        depth += 1
        if depth > Self.maximumDepth { throw error("nesting deeper than \(Self.maximumDepth) levels") }
    }

    /// Skips white space and rejects a comment where punctuation was expected.
    private mutating func skipToToken() throws(SyntaxError) {
        skipWhitespace()
        if current == UInt8(ascii: "/") {
            throw error("comments are not allowed in JSON; remove them", code: "comment")
        }
    }

    private mutating func parseObject() throws(SyntaxError) -> JSONValue {
        try enter()
        index += 1
        var members: [(key: String, value: JSONValue)] = []
        var names = Set<String>()
        try skipToToken()
        if current == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(members)
        }
        while true {
            try skipToToken()
            guard current == UInt8(ascii: "\"") else {
                if current == UInt8(ascii: "}") {
                    throw error("trailing comma before \"}\"; remove it", code: "trailing-comma")
                }
                throw unexpected("expected a member name in double quotes")
            }
            let keyIndex = index
            let key = try parseString()
            if !names.insert(key).inserted {
                // The position is counted only here: counting it for every name would make a
                // body of many members quadratic to parse.
                let keyPosition = position(at: keyIndex)
                duplicates.append(
                    SyntaxError(
                        code: "duplicate-key",
                        message:
                            "the member name \"\(key)\" appears twice in one object (again at \(keyPosition)); only the last one counts, as on Apple devices: merge them into one",
                        member: key))
            }
            try skipToToken()
            guard current == UInt8(ascii: ":") else {
                throw unexpected("expected \":\" after the member name \"\(key)\"")
            }
            index += 1
            members.append((key, try parseValue()))
            try skipToToken()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                depth -= 1
                return .object(members)
            default: throw unexpected("expected \",\" or \"}\" in an object")
            }
        }
    }

    private mutating func parseArray() throws(SyntaxError) -> JSONValue {
        try enter()
        index += 1
        var elements: [JSONValue] = []
        try skipToToken()
        if current == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            try skipToToken()
            if current == UInt8(ascii: "]") {
                throw error("trailing comma before \"]\"; remove it", code: "trailing-comma")
            }
            elements.append(try parseValue())
            try skipToToken()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                depth -= 1
                return .array(elements)
            default: throw unexpected("expected \",\" or \"]\" in an array")
            }
        }
    }

    private mutating func parseLiteral(_ word: String, _ value: JSONValue) throws(SyntaxError) -> JSONValue {
        let utf8 = Array(word.utf8)
        guard index + utf8.count <= bytes.count, Array(bytes[index..<index + utf8.count]) == utf8 else {
            throw error("unexpected word; JSON literals are true, false and null")
        }
        index += utf8.count
        return value
    }

    private mutating func parseNumber() throws(SyntaxError) -> JSONValue {
        let start = index
        func digits() -> Int {
            let from = index
            while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { index += 1 }
            return index - from
        }
        if current == UInt8(ascii: "-") { index += 1 }
        if current == UInt8(ascii: "0") {
            index += 1
            if let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                throw error("numbers may not have leading zeros")
            }
        } else if digits() == 0 {
            throw error("invalid number")
        }
        if current == UInt8(ascii: ".") {
            index += 1
            if digits() == 0 { throw error("invalid number: digits must follow the decimal point") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            if digits() == 0 { throw error("invalid number: digits must follow the exponent") }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        return .number(Double(text) ?? .nan)
    }

    private mutating func parseString() throws(SyntaxError) -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        var runStart = index
        func flush() {
            scalars.append(contentsOf: String(decoding: bytes[runStart..<index], as: UTF8.self).unicodeScalars)
        }
        while true {
            guard let byte = current else { throw error("unterminated string") }
            if byte == UInt8(ascii: "\"") {
                flush()
                index += 1
                return String(scalars)
            }
            if byte < 0x20 { throw error("control character inside a string; escape it") }
            if byte == UInt8(ascii: "\\") {
                flush()
                index += 1
                guard let escape = current else { throw error("unterminated escape") }
                index += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    var value = try parseHex4()
                    if (0xD800...0xDBFF).contains(value) {
                        guard current == UInt8(ascii: "\\"), index + 1 < bytes.count,
                            bytes[index + 1] == UInt8(ascii: "u")
                        else { throw error("unpaired UTF-16 surrogate in \\u escape") }
                        index += 2
                        let low = try parseHex4()
                        guard (0xDC00...0xDFFF).contains(low) else {
                            throw error("unpaired UTF-16 surrogate in \\u escape")
                        }
                        value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(value) {
                        throw error("unpaired UTF-16 surrogate in \\u escape")
                    }
                    scalars.append(Unicode.Scalar(value)!)
                default: throw error("invalid escape sequence in a string")
                }
                runStart = index
                continue
            }
            index += 1
        }
    }

    private mutating func parseHex4() throws(SyntaxError) -> UInt32 {
        guard index + 4 <= bytes.count,
            let value = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
        else { throw error("\\u must be followed by four hexadecimal digits") }
        index += 4
        return value
    }
}

/// I-JSON (RFC 7493): one RFC 8259 JSON value in which no object repeats a member name. The vault
/// service reads every request body this way before its decoder does, so that two readers of one
/// request can never disagree on which of two same-named members counts.
public enum IJSON {
    /// Why a text is not I-JSON.
    public struct Violation: Error, Sendable {
        /// What is wrong, with the line and column, or the repeated member's name.
        public let message: String
        /// The member name repeated in one object, when that is what is wrong.
        public let repeatedMember: String?
    }

    /// The value `bytes` holds; throws when it is not one strict JSON value, or when an object in
    /// it repeats a member name (the first such name is reported).
    @discardableResult
    public static func parse(_ bytes: [UInt8]) throws(Violation) -> JSONValue {
        guard String(validating: bytes, as: UTF8.self) != nil else {
            throw Violation(message: "the text is not valid UTF-8, which JSON must be", repeatedMember: nil)
        }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            throw Violation(message: "the text starts with a byte-order mark, which JSON must not", repeatedMember: nil)
        }
        let parsed: (value: JSONValue, duplicates: [StrictJSONParser.SyntaxError])
        do {
            parsed = try StrictJSONParser.parse(bytes)
        } catch {
            throw Violation(message: error.message, repeatedMember: nil)
        }
        if let first = parsed.duplicates.first, let member = first.member {
            throw Violation(
                message:
                    "the member \"\(member)\" appears more than once in one object: send each member once (I-JSON, RFC 7493)",
                repeatedMember: member)
        }
        return parsed.value
    }
}
