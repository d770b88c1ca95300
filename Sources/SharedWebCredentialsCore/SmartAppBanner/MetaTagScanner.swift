/// A tolerant scan of an HTML page for `<meta>` tags: no JavaScript, no HTML engine. It skips
/// comments and the text of `<script>` and `<style>` elements, reads attributes quoted with `"`
/// or `'` or unquoted, in any case, and decodes the common character references.
public enum MetaTagScanner {
    /// One `<meta>` tag found.
    public struct Tag: Sendable, Equatable {
        /// The attributes, names lower-cased, values decoded, in the order written.
        public var attributes: [(name: String, value: String)]
        /// Whether the tag came after the start of `<body>` (or after `</head>`).
        public var isInBody: Bool
        /// The 1-based line of the page the tag starts on.
        public var line: Int

        /// The value of the attribute `name` (lower-case), if present.
        public subscript(name: String) -> String? { attributes.first { $0.name == name }?.value }

        public static func == (lhs: Tag, rhs: Tag) -> Bool {
            lhs.attributes.map(\.name) == rhs.attributes.map(\.name)
                && lhs.attributes.map(\.value) == rhs.attributes.map(\.value) && lhs.isInBody == rhs.isInBody
                && lhs.line == rhs.line
        }
    }

    /// Every `<meta>` tag of `page` (read as UTF-8, invalid bytes replaced).
    public static func metaTags(in page: [UInt8]) -> [Tag] {
        let text = Array(String(decoding: page, as: UTF8.self).unicodeScalars)
        var tags: [Tag] = []
        var index = 0
        var inBody = false
        var line = 1
        var counted = 0
        while index < text.count {
            guard text[index] == "<" else {
                index += 1
                continue
            }
            if starts(text, at: index, with: "<!--") {
                index = find(text, "-->", from: index + 4).map { $0 + 3 } ?? text.count
                continue
            }
            for raw in ["script", "style"] where startsTag(text, at: index, named: raw) {
                index = find(text, "</\(raw)", from: index + 1, ignoringCase: true) ?? text.count
                break
            }
            guard index < text.count else { break }
            if startsTag(text, at: index, named: "body") || starts(text, at: index, with: "</head", ignoringCase: true)
            {
                inBody = true
            }
            if startsTag(text, at: index, named: "meta") {
                line += text[counted..<index].lazy.filter { $0 == "\n" }.count
                counted = index
                let (attributes, end) = readAttributes(text, from: index + 5)
                tags.append(Tag(attributes: attributes, isInBody: inBody, line: line))
                index = end
                continue
            }
            index += 1
        }
        return tags
    }

    private static func starts(
        _ text: [Unicode.Scalar], at index: Int, with prefix: String, ignoringCase: Bool = false
    ) -> Bool {
        let scalars = Array(prefix.unicodeScalars)
        guard index + scalars.count <= text.count else { return false }
        for (offset, scalar) in scalars.enumerated() {
            let actual = text[index + offset]
            if ignoringCase ? lower(actual) != lower(scalar) : actual != scalar { return false }
        }
        return true
    }

    /// Whether a start tag `<name` begins at `index` (followed by space, `/` or `>`).
    private static func startsTag(_ text: [Unicode.Scalar], at index: Int, named name: String) -> Bool {
        guard starts(text, at: index, with: "<" + name, ignoringCase: true) else { return false }
        let after = index + 1 + name.unicodeScalars.count
        return after >= text.count || text[after] == ">" || text[after] == "/" || isSpace(text[after])
    }

    private static func find(
        _ text: [Unicode.Scalar], _ needle: String, from start: Int, ignoringCase: Bool = false
    ) -> Int? {
        var index = start
        while index < text.count {
            if starts(text, at: index, with: needle, ignoringCase: ignoringCase) { return index }
            index += 1
        }
        return nil
    }

    private static func lower(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        ("A"..."Z").contains(scalar) ? Unicode.Scalar(scalar.value + 32)! : scalar
    }

    private static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" || scalar == "\u{0C}"
    }

    /// Reads attributes up to the closing `>`; returns them and the index after the tag.
    private static func readAttributes(
        _ text: [Unicode.Scalar], from start: Int
    ) -> ([(name: String, value: String)], Int) {
        var attributes: [(name: String, value: String)] = []
        var index = start
        func skipSpace() { while index < text.count && isSpace(text[index]) { index += 1 } }
        while index < text.count {
            skipSpace()
            guard index < text.count else { break }
            if text[index] == ">" { return (attributes, index + 1) }
            if text[index] == "/" {
                index += 1
                continue
            }
            var name = ""
            while index < text.count, !isSpace(text[index]), !"=>/".unicodeScalars.contains(text[index]) {
                name.unicodeScalars.append(lower(text[index]))
                index += 1
            }
            skipSpace()
            var value = ""
            if index < text.count, text[index] == "=" {
                index += 1
                skipSpace()
                if index < text.count, text[index] == "\"" || text[index] == "'" {
                    let quote = text[index]
                    index += 1
                    while index < text.count, text[index] != quote {
                        value.unicodeScalars.append(text[index])
                        index += 1
                    }
                    index += 1
                } else {
                    while index < text.count, !isSpace(text[index]), text[index] != ">" {
                        value.unicodeScalars.append(text[index])
                        index += 1
                    }
                }
            }
            if !name.isEmpty { attributes.append((name, decodeReferences(value))) }
        }
        return (attributes, index)
    }

    /// `text` with `&amp;`, `&quot;`, `&apos;`, `&lt;`, `&gt;` and numeric references decoded;
    /// anything else is left as written.
    static func decodeReferences(_ text: String) -> String {
        guard text.contains("&") else { return text }
        let named: [String: String] = ["amp": "&", "quot": "\"", "apos": "'", "lt": "<", "gt": ">"]
        var result = ""
        var rest = Substring(text)
        while let ampersand = rest.firstIndex(of: "&") {
            result += rest[..<ampersand]
            let after = rest[rest.index(after: ampersand)...]
            guard let semicolon = after.prefix(10).firstIndex(of: ";") else {
                result += "&"
                rest = after
                continue
            }
            let name = after[..<semicolon]
            var replacement: String?
            if let known = named[String(name)] {
                replacement = known
            } else if name.hasPrefix("#") {
                let digits = name.dropFirst()
                let value = digits.lowercased().hasPrefix("x") ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits)
                replacement = value.flatMap { Unicode.Scalar($0) }.map { String(Character($0)) }
            }
            if let replacement {
                result += replacement
                rest = after[after.index(after: semicolon)...]
            } else {
                result += "&"
                rest = after
            }
        }
        return result + rest
    }
}
