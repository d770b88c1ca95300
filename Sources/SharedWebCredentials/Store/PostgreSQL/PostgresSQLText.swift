/// The two rewrites the PostgreSQL engine makes to the SQL the stores write once for both engines:
/// `?` placeholders numbered `$1`, `$2`, ... for the extended query protocol, and a migration's
/// text split into its statements (the extended protocol takes one statement at a time).
///
/// Both skip what is not SQL code: string literals (`'...'`, with `''` inside), quoted identifiers
/// (`"..."`) and comments (`-- ...` and `/* ... */`). The vault's SQL uses no dollar-quoted
/// strings and no `E'...'` escapes, and the migrations no functions, so nothing else can hide a
/// `?` or a `;`.
enum PostgresSQLText {
    /// `sql` with its `?` placeholders, outside literals and comments, replaced by `$1`, `$2`, ...
    /// each followed by `::type` when `types` gives one for it (`$1::bytea`): a statement
    /// prepared from that text takes parameters of exactly those types.
    static func numberingPlaceholders(_ sql: String, types: [String?] = []) -> String {
        guard sql.utf8.contains(UInt8(ascii: "?")) else { return sql }
        var result = ""
        result.reserveCapacity(sql.utf8.count + 16)
        var number = 0
        scan(sql) { character, isCode in
            if isCode, character == "?" {
                number += 1
                result += "$\(number)"
                if number <= types.count, let type = types[number - 1] { result += "::\(type)" }
            } else {
                result.append(character)
            }
        }
        return result
    }

    /// One statement that runs `statements` (INSERT, UPDATE or DELETE, at least two): the last
    /// as the main statement, the others as its `WITH` parts, in order, so that their `?`
    /// placeholders keep their order.
    static func combining(_ statements: [String]) -> String {
        let parts = statements.dropLast().enumerated().map { "part\($0.offset + 1) AS (\($0.element))" }
        return "WITH \(parts.joined(separator: ", ")) \(statements.last ?? "")"
    }

    /// The statements of `sql`, split at the `;` that end them (outside literals and comments),
    /// trimmed; empty statements and those that are only comments are left out.
    static func statements(_ sql: String) -> [String] {
        var statements: [String] = []
        var current = ""
        var hasCode = false
        scan(sql) { character, isCode in
            if isCode, character == ";" {
                if hasCode { statements.append(current.trimmingWhitespace()) }
                current = ""
                hasCode = false
                return
            }
            current.append(character)
            if isCode, !character.isWhitespace { hasCode = true }
        }
        if hasCode { statements.append(current.trimmingWhitespace()) }
        return statements
    }

    /// Calls `body` with each character of `sql` and whether it is SQL code (not inside a
    /// literal, a quoted identifier or a comment, nor one of the characters that open or close them).
    private static func scan(_ sql: String, _ body: (Character, Bool) -> Void) {
        let characters = Array(sql)
        var index = 0
        func next() -> Character? { index + 1 < characters.count ? characters[index + 1] : nil }
        while index < characters.count {
            let character = characters[index]
            var end: ((Int) -> Bool)?
            if character == "'" {
                end = { characters[$0] == "'" }
            } else if character == "\"" {
                end = { characters[$0] == "\"" }
            } else if character == "-", next() == "-" {
                end = { characters[$0] == "\n" }
            } else if character == "/", next() == "*" {
                body(character, false)
                index += 1
                end = { characters[$0] == "/" && characters[$0 - 1] == "*" }
            }
            guard let end else {
                body(character, true)
                index += 1
                continue
            }
            // Not code up to and including the character that closes it.
            body(characters[index], false)
            index += 1
            while index < characters.count {
                let closes = end(index)
                body(characters[index], false)
                index += 1
                if closes { break }
            }
        }
    }
}

extension String {
    /// The string without leading and trailing whitespace and newlines.
    fileprivate func trimmingWhitespace() -> String {
        var view = Substring(self)
        while let first = view.first, first.isWhitespace { view.removeFirst() }
        while let last = view.last, last.isWhitespace { view.removeLast() }
        return String(view)
    }
}
