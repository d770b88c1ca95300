/// Reads the few DER shapes a PKCS#8 private key is made of: definite lengths in their shortest
/// form (at most four length bytes), low tag numbers, every element within its parent. Each
/// read names the field it expected in its error.
struct DERReader {
    static let integer: UInt8 = 0x02
    static let bitString: UInt8 = 0x03
    static let octetString: UInt8 = 0x04
    static let objectIdentifier: UInt8 = 0x06
    static let sequence: UInt8 = 0x30

    private let bytes: UnsafeRawBufferPointer
    private var offset = 0

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    var isAtEnd: Bool { offset == bytes.count }

    /// The content of the next element, which must have `tag`.
    mutating func element(tag: UInt8, _ field: String) throws(PasskeyPrivateKey.PKCS8Error) -> UnsafeRawBufferPointer {
        guard let content = try optional(tag: tag) else {
            throw .malformed(isAtEnd ? "\(field) is missing" : "\(field) is not where it should be")
        }
        return content
    }

    /// The content of the next element if it has `tag`; nil (nothing read) otherwise.
    mutating func optional(tag: UInt8) throws(PasskeyPrivateKey.PKCS8Error) -> UnsafeRawBufferPointer? {
        guard offset < bytes.count, bytes[offset] == tag else { return nil }
        guard offset + 1 < bytes.count else { throw .malformed("it ends inside an element's header") }
        var length = Int(bytes[offset + 1])
        var start = offset + 2
        if length >= 0x80 {
            let count = length & 0x7F
            guard (1...4).contains(count) else {
                throw .malformed("an element's length is not a definite length of one to four bytes")
            }
            guard start + count <= bytes.count else { throw .malformed("it ends inside an element's length") }
            length = 0
            for byte in bytes[start..<(start + count)] { length = length << 8 | Int(byte) }
            guard length >= 0x80, bytes[start] != 0 else {
                throw .malformed("an element's length is not in its shortest form (DER)")
            }
            start += count
        }
        guard length <= bytes.count - start else { throw .malformed("an element is longer than what holds it") }
        offset = start + length
        return UnsafeRawBufferPointer(rebasing: bytes[start..<(start + length)])
    }

    /// A SEQUENCE's content, to read its fields from.
    mutating func sequence(_ field: String) throws(PasskeyPrivateKey.PKCS8Error) -> DERReader {
        DERReader(try element(tag: Self.sequence, field))
    }

    /// A small non-negative INTEGER's content bytes.
    mutating func integer(_ field: String) throws(PasskeyPrivateKey.PKCS8Error) -> [UInt8] {
        Array(try element(tag: Self.integer, field))
    }

    /// A BIT STRING's bytes; it must have no unused bits.
    mutating func bitString(_ field: String) throws(PasskeyPrivateKey.PKCS8Error) -> [UInt8] {
        let content = try element(tag: Self.bitString, field)
        guard content.first == 0 else { throw .malformed("\(field) is a bit string with unused bits") }
        return Array(content.dropFirst())
    }

    /// An OBJECT IDENTIFIER's content in dotted form (1.2.840.113549.1.1.1), for messages.
    static func dotted(_ content: [UInt8]) -> String {
        var arcs: [UInt64] = []
        var value: UInt64 = 0
        for byte in content {
            value = value << 7 | UInt64(byte & 0x7F)
            if byte & 0x80 == 0 {
                if arcs.isEmpty {
                    arcs += value < 80 ? [value / 40, value % 40] : [2, value - 80]
                } else {
                    arcs.append(value)
                }
                value = 0
            }
            if value > UInt64.max >> 8 { return "(an unreadable object identifier)" }
        }
        return arcs.map(String.init).joined(separator: ".")
    }
}
