/// Android's rules for an application's package name (the `package` of its manifest): at least
/// two segments separated by dots, each starting with an ASCII letter and made only of ASCII
/// letters, digits and underscores.
public enum AndroidPackageName {
    /// Returns `text` when it is a valid package name; otherwise throws `invalidInput` naming the
    /// segment and the character (with its code point) that break the rules.
    public static func validate(_ text: String) throws -> String {
        func invalid(_ rule: String) -> SharedWebCredentialsError {
            SharedWebCredentialsError(
                .invalidInput,
                "invalid Android package name \"\(text)\": \(rule); expected for example android:com.example.shop")
        }
        if text.isEmpty { throw invalid("it is empty") }
        let segments = text.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count >= 2 else {
            throw invalid("it has one segment; a package name has at least two, separated by dots")
        }
        for (index, segment) in segments.enumerated() {
            guard let first = segment.unicodeScalars.first else {
                throw invalid("segment \(index + 1) is empty (leading, trailing or double dot)")
            }
            guard ("a"..."z").contains(first) || ("A"..."Z").contains(first) else {
                throw invalid(
                    "segment \(index + 1) \"\(segment)\" starts with \(first.codePointDescription); each segment starts with a letter A-Z or a-z"
                )
            }
            if let bad = segment.unicodeScalars.first(where: { !($0.isASCIIAlphanumeric || $0 == "_") }) {
                throw invalid(
                    "segment \(index + 1) contains \(bad.codePointDescription); only the letters A-Z and a-z, the digits 0-9 and _ are allowed"
                )
            }
        }
        return text
    }
}
