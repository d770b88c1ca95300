extension Unicode.Scalar {
    /// The scalar as messages name it: `U+2003 EM SPACE`, `U+017F LATIN SMALL LETTER LONG S`
    /// (the code point alone when Unicode gives it no name). Never the character itself, which may
    /// be invisible or look like another.
    public var codePointDescription: String {
        let hex = String(value, radix: 16, uppercase: true)
        let code = "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        guard let name = properties.name ?? properties.nameAlias else { return code }
        return "\(code) \(name)"
    }
}

extension String {
    /// The first character outside ASCII, if any.
    var firstNonASCIIScalar: Unicode.Scalar? { unicodeScalars.first { !$0.isASCII } }
}
