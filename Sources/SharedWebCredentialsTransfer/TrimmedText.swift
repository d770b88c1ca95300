extension StringProtocol {
    /// The text without leading or trailing spaces and tabs. Import calls this for every field it
    /// reads, so it stays in the standard library (Foundation's `trimmingCharacters` bridges to
    /// NSString, which cost a third of an import's parsing time).
    var trimmedOfSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
