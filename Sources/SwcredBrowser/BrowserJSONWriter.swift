/// A value of a reply: the protocol's replies hold only strings, integers, arrays, objects and
/// `null`.
enum BrowserJSONValue: Sendable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    case string(String)
    case integer(Int)
    case array([BrowserJSONValue])
    case object([String: BrowserJSONValue])
    case null

    init(stringLiteral value: String) { self = .string(value) }
    init(integerLiteral value: Int) { self = .integer(value) }
    init(arrayLiteral elements: BrowserJSONValue...) { self = .array(elements) }
    init(dictionaryLiteral elements: (String, BrowserJSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    init(nilLiteral: ()) { self = .null }
}

/// Writes a reply object as compact JSON (RFC 8259), members sorted by their keys' UTF-8 bytes.
///
/// Strings are written as they are in UTF-8, escaping only what JSON requires: the quotation mark,
/// the backslash and the control characters U+0000 to U+001F (as `\u00XX`). Written by hand
/// rather than with `JSONSerialization`, whose path through `AnyHashable` dictionaries cost more
/// instructions than a whole service request did (Benchmarks/README.md, "The browser bridge").
/// The text is measured first and written into one buffer of exactly its size, so that no
/// growing buffer leaves a copy of a password behind in freed memory: the caller wipes the one.
enum BrowserJSONWriter {
    static func data(_ object: [String: BrowserJSONValue]) -> [UInt8] {
        let value = BrowserJSONValue.object(object)
        var output: [UInt8] = []
        output.reserveCapacity(byteCount(of: value))
        write(value, to: &output)
        return output
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private static func byteCount(of value: BrowserJSONValue) -> Int {
        switch value {
        case .string(let string): return byteCount(of: string)
        case .integer(let integer): return String(integer).utf8.count
        case .null: return 4
        case .array(let elements):
            return 2 + max(elements.count - 1, 0) + elements.reduce(0) { $0 + byteCount(of: $1) }
        case .object(let members):
            return 2 + max(members.count - 1, 0)
                + members.reduce(0) { $0 + byteCount(of: $1.key) + 1 + byteCount(of: $1.value) }
        }
    }

    private static func byteCount(of string: String) -> Int {
        var string = string
        return string.withUTF8 { bytes in
            bytes.reduce(2 + bytes.count) { count, byte in
                needsEscape(byte) ? count + (byte < 0x20 ? 5 : 1) : count
            }
        }
    }

    /// Whether JSON requires `byte` escaped in a string: the quotation mark, the backslash and
    /// the control characters (UTF-8 bytes of other characters are all 0x80 or above).
    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    private static func write(_ value: BrowserJSONValue, to output: inout [UInt8]) {
        switch value {
        case .string(let string): write(string, to: &output)
        case .integer(let integer): output.append(contentsOf: String(integer).utf8)
        case .null: output.append(contentsOf: "null".utf8)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                write(element, to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for (index, key) in members.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }).enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                write(key, to: &output)
                output.append(UInt8(ascii: ":"))
                write(members[key]!, to: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    private static func write(_ string: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { bytes in
            // Runs of bytes that need no escape are copied whole.
            var runStart = 0
            for index in bytes.indices where needsEscape(bytes[index]) {
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                let byte = bytes[index]
                if byte < 0x20 {
                    output.append(contentsOf: "\\u00".utf8)
                    output.append(hexDigits[Int(byte >> 4)])
                    output.append(hexDigits[Int(byte & 0x0F)])
                } else {
                    output.append(UInt8(ascii: "\\"))
                    output.append(byte)
                }
                runStart = index + 1
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
        }
        output.append(UInt8(ascii: "\""))
    }
}
