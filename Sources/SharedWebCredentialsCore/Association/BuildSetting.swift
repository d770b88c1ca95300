import Foundation

/// An Xcode build-setting reference such as `$(APP_LINKS_DOMAIN)` or `${PRODUCT_BUNDLE_IDENTIFIER}`
/// left in a file that Xcode would have expanded while building.
struct BuildSetting {
    /// The reference exactly as written, case kept: `$(APP_LINKS_DOMAIN)`.
    let written: String
    /// The setting's name without modifiers: `APP_LINKS_DOMAIN` (also for `$(NAME:lower)`).
    let name: String

    /// The first reference in `text`, if any.
    static func first(in text: String) -> BuildSetting? { all(in: text).first }

    /// Every reference in `text`, in order.
    static func all(in text: String) -> [BuildSetting] {
        var found: [BuildSetting] = []
        var rest = Substring(text)
        while let dollar = rest.firstIndex(of: "$") {
            let afterDollar = rest.index(after: dollar)
            guard afterDollar < rest.endIndex, let close = closing(rest[afterDollar]) else {
                rest = rest[afterDollar...]
                continue
            }
            guard let end = rest[afterDollar...].firstIndex(of: close) else { break }
            let inner = rest[rest.index(after: afterDollar)..<end]
            found.append(
                BuildSetting(written: String(rest[dollar...end]), name: String(inner.prefix { $0 != ":" })))
            rest = rest[rest.index(after: end)...]
        }
        return found
    }

    /// `text` with every reference replaced by `<value of NAME>`, for a suggestion to copy.
    static func suggestion(for text: String) -> String {
        all(in: text).reduce(text) { $0.replacingOccurrences(of: $1.written, with: "<value of \($1.name)>") }
    }

    private static func closing(_ opening: Character) -> Character? {
        switch opening {
        case "(": ")"
        case "{": "}"
        default: nil
        }
    }
}
