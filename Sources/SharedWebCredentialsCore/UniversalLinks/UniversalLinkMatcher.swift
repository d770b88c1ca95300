/// Whether an app opens a URL as a universal link, and the pattern that decided it.
public struct UniversalLinkDecision: Sendable, Equatable {
    /// Why the app does or does not open the URL.
    public enum Reason: String, Sendable, Equatable {
        /// A pattern of one of the app's entries matched: the app opens the URL.
        case matched
        /// The first matching pattern has `exclude` (or a legacy `NOT `): the URL stays in the browser.
        case excluded
        /// The app is listed, but none of its patterns match.
        case noMatch = "no-match"
        /// No `details` entry names the app.
        case appNotListed = "app-not-listed"
    }

    /// The pattern that decided.
    public struct DecidingPattern: Sendable, Equatable {
        /// The entry's position in `applinks.details`.
        public let detailsIndex: Int
        /// The pattern's position in the entry's `components` or `paths`.
        public let patternIndex: Int
        /// `components` or `paths`.
        public let form: ApplinksConfiguration.Entry.Form
        /// The pattern as written (a legacy string, or the dictionary as JSON).
        public let text: String
        /// Whether it excludes.
        public let exclude: Bool
        /// Its `comment`, if any.
        public let comment: String?
    }

    /// Whether the app opens the URL.
    public var opens: Bool { reason == .matched }
    /// Why.
    public let reason: Reason
    /// The pattern that decided; nil when nothing matched.
    public let decidingPattern: DecidingPattern?
    /// An earlier entry for another app whose pattern matches the URL first: when that app is
    /// installed too, Apple's first-match rule gives the link to it.
    public let claimedEarlierBy: (appIDs: [String], pattern: DecidingPattern)?

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.reason == rhs.reason && lhs.decidingPattern == rhs.decidingPattern
            && lhs.claimedEarlierBy?.appIDs == rhs.claimedEarlierBy?.appIDs
            && lhs.claimedEarlierBy?.pattern == rhs.claimedEarlierBy?.pattern
    }
}

extension ApplinksConfiguration {
    /// Decides whether `app` opens `url`: the entries naming the app are tried in file order, and
    /// within each its patterns in order; the first pattern that matches decides (`exclude`
    /// means not opened). An entry with `components` ignores its `paths`.
    public func decide(_ url: UniversalLinkURL, for app: ApplicationIdentifier) -> UniversalLinkDecision {
        var claimed: (appIDs: [String], pattern: UniversalLinkDecision.DecidingPattern)?
        var listed = false
        for entry in details {
            let isApps = entry.appIDs.contains { app.isNamed(by: $0) }
            listed = listed || isApps
            guard let rule = firstMatch(in: entry, url: url) else { continue }
            let deciding = UniversalLinkDecision.DecidingPattern(
                detailsIndex: entry.index, patternIndex: rule.index, form: entry.form, text: rule.text,
                exclude: rule.exclude, comment: rule.comment)
            if isApps {
                return UniversalLinkDecision(
                    reason: rule.exclude ? .excluded : .matched, decidingPattern: deciding, claimedEarlierBy: claimed)
            }
            if claimed == nil && !rule.exclude { claimed = (entry.appIDs, deciding) }
        }
        return UniversalLinkDecision(
            reason: listed ? .noMatch : .appNotListed, decidingPattern: nil, claimedEarlierBy: claimed)
    }

    /// The first rule of `entry` that matches `url`.
    public func firstMatch(in entry: Entry, url: UniversalLinkURL) -> Rule? {
        entry.rules.first { rule in
            let options = rule.options.over(entry.defaults).over(defaults)
            return matches(rule, url: url, options: options)
        }
    }

    private func matches(_ rule: Rule, url: UniversalLinkURL, options: MatchOptions) -> Bool {
        let caseSensitive = options.caseSensitive ?? true
        let encoded = options.percentEncoded ?? true
        func form(_ text: String) -> String { encoded ? text : UniversalLinkURL.decode(text) }
        func match(_ pattern: String, _ subject: String) -> Bool {
            guard let compiled = try? URLPattern(pattern, variables: variables, caseSensitive: caseSensitive) else {
                return false
            }
            return compiled.matches(form(subject))
        }
        if let path = rule.path, !match(path, url.path) { return false }
        switch rule.query {
        case .string(let pattern):
            if !match(pattern, url.query ?? "") { return false }
        case .items(let items):
            let present = url.queryItems.map { (name: form($0.name), value: $0.value) }
            for item in items {
                let name = caseSensitive ? item.name : item.name.lowercased()
                let values = present.filter { (caseSensitive ? $0.name : $0.name.lowercased()) == name }.map(\.value)
                // A missing item, or one without a value, matches as the empty string.
                for value in values.isEmpty ? [""] : values where !match(item.pattern, value) { return false }
            }
        case nil: break
        }
        if let fragment = rule.fragment, !match(fragment, url.fragment ?? "") { return false }
        return true
    }
}
