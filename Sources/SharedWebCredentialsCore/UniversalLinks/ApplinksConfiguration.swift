/// The `applinks` section of an apple-app-site-association file, read completely so that
/// universal links can be matched exactly as Apple documents: `details` in both forms,
/// `defaults` at both levels and `substitutionVariables`.
public struct ApplinksConfiguration: Sendable, Equatable {
    /// The `details` entries, in file order.
    public var details: [Entry] = []
    /// `applinks.defaults`, the file-wide matching options.
    public var defaults = MatchOptions()
    /// `applinks.substitutionVariables` and the predefined variables.
    public var variables = SubstitutionVariables()
    /// Problems with the section's patterns, all warnings: Apple skips what it cannot use.
    public var diagnostics: [AASADiagnostic] = []

    /// Creates an empty configuration.
    public init() {}

    /// `caseSensitive` and `percentEncoded`, each either given or left to the next level.
    public struct MatchOptions: Sendable, Equatable {
        /// Whether letters must match in case; nil leaves it to the level above (default true).
        public var caseSensitive: Bool?
        /// Whether patterns match the percent-encoded URL; nil leaves it to the level above
        /// (default true).
        public var percentEncoded: Bool?

        /// Creates options; nil means "not given here".
        public init(caseSensitive: Bool? = nil, percentEncoded: Bool? = nil) {
            self.caseSensitive = caseSensitive
            self.percentEncoded = percentEncoded
        }

        /// These options where given, else `fallback`'s.
        public func over(_ fallback: MatchOptions) -> MatchOptions {
            MatchOptions(
                caseSensitive: caseSensitive ?? fallback.caseSensitive,
                percentEncoded: percentEncoded ?? fallback.percentEncoded)
        }
    }

    /// One `details` entry.
    public struct Entry: Sendable, Equatable {
        /// How the entry lists its patterns.
        public enum Form: String, Sendable, Equatable {
            /// iOS 13 and later: `components` dictionaries.
            case components
            /// iOS 12 and earlier: `paths` strings, `NOT ` for exclusions.
            case paths
            /// Neither: the entry matches no URL.
            case none
        }

        /// The entry's position in `details`.
        public var index: Int
        /// `appIDs`, or the legacy `appID`.
        public var appIDs: [String]
        /// The entry's `defaults`.
        public var defaults = MatchOptions()
        /// Which form decides (`components` wins over `paths`).
        public var form: Form
        /// The patterns, in order; the first that matches decides.
        public var rules: [Rule]

        /// Creates an entry.
        public init(index: Int, appIDs: [String], defaults: MatchOptions = MatchOptions(), form: Form, rules: [Rule]) {
            self.index = index
            self.appIDs = appIDs
            self.defaults = defaults
            self.form = form
            self.rules = rules
        }
    }

    /// The `?` of a components dictionary.
    public enum QueryPattern: Sendable, Equatable {
        /// A pattern for the whole query string.
        case string(String)
        /// Patterns for named query items, in file order: every instance of each name must match.
        case items([QueryItemPattern])
    }

    /// One item of a query dictionary: a name and the pattern its values must match.
    public struct QueryItemPattern: Sendable, Equatable {
        /// The query item's name, compared whole.
        public var name: String
        /// The pattern for its value.
        public var pattern: String

        /// Creates an item pattern.
        public init(name: String, pattern: String) {
            self.name = name
            self.pattern = pattern
        }
    }

    /// One pattern: a components dictionary, or one legacy `paths` string.
    public struct Rule: Sendable, Equatable {
        /// The position in `components` or `paths`.
        public var index: Int
        /// `/`, the path pattern; nil matches any path.
        public var path: String?
        /// `?`, the query pattern; nil matches any query.
        public var query: QueryPattern?
        /// `#`, the fragment pattern; nil matches any fragment.
        public var fragment: String?
        /// `exclude` (or a legacy `NOT ` prefix): a match means "do not open".
        public var exclude = false
        /// The dictionary's own `caseSensitive` and `percentEncoded`.
        public var options = MatchOptions()
        /// `comment`, ignored by matching.
        public var comment: String?
        /// The pattern as the report shows it: the legacy string, or the dictionary as JSON.
        public var text: String

        /// Creates a rule.
        public init(
            index: Int, path: String? = nil, query: QueryPattern? = nil, fragment: String? = nil,
            exclude: Bool = false, options: MatchOptions = MatchOptions(), comment: String? = nil, text: String
        ) {
            self.index = index
            self.path = path
            self.query = query
            self.fragment = fragment
            self.exclude = exclude
            self.options = options
            self.comment = comment
            self.text = text
        }
    }
}
