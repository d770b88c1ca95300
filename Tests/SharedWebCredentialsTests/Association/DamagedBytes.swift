import PropertyBased

/// Damages a file's bytes as a bad upload, a truncation or a careless edit would, for the
/// properties that read damaged files: `edits` times, a byte replaced, inserted or removed at a
/// random place, the new byte random or JSON punctuation (a quote, a closing bracket or brace).
func damage(_ bytes: [UInt8], edits: Int, _ random: inout any SeededRandomNumberGenerator) -> [UInt8] {
    var bytes = bytes
    for _ in 0..<edits where !bytes.isEmpty {
        let index = Int.random(in: 0..<bytes.count, using: &random)
        let byte = [
            UInt8.random(in: 0...255, using: &random), UInt8(ascii: "\""), UInt8(ascii: "]"), UInt8(ascii: "}"),
        ]
        .randomElement(using: &random)!
        switch Int.random(in: 0..<3, using: &random) {
        case 0: bytes[index] = byte
        case 1: bytes.insert(byte, at: index)
        default: bytes.remove(at: index)
        }
    }
    return bytes
}
