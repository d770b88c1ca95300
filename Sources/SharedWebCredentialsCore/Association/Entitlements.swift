import Foundation

/// An app's associated-domains entitlement: its list of entries, read from an Xcode
/// `.entitlements` property list or from strings (SPEC.md §2).
public struct Entitlements: Hashable, Sendable {
    /// The plist key that holds the entries.
    public static let associatedDomainsKey = "com.apple.developer.associated-domains"
    /// Beyond this many domains a warning says that each is fetched and verified separately.
    public static let recommendedDomainLimit = 30

    /// Every entry, in the order given, duplicates removed.
    public let entries: [AssociatedDomainEntry]
    /// What reading the entries found and left out: entries of other services that hold an
    /// unresolved Xcode build setting, a missing entitlement key. Not stored with the app.
    public let readingWarnings: [String]

    /// Validates entries given as strings; the first bad one throws with the rule it broke. An
    /// entry holding an unresolved Xcode build setting such as `$(APP_LINKS_DOMAIN)` is refused
    /// when it is a `webcredentials:` entry (the app would lose a domain without saying so) and
    /// skipped with a warning otherwise (swcred never uses it).
    public init(strings: [String]) throws {
        try self.init(strings: strings, readingWarnings: [])
    }

    private init(strings: [String], readingWarnings: [String]) throws {
        var seen = Set<AssociatedDomainEntry>()
        var entries: [AssociatedDomainEntry] = []
        var warnings = readingWarnings
        for string in strings {
            if let setting = BuildSetting.first(in: string) {
                let service = string.prefix { $0 != ":" }
                guard service != AssociatedDomainEntry.Service.webcredentials.rawValue else {
                    throw SharedWebCredentialsError(
                        .invalidInput,
                        "\"\(string)\" holds the unresolved Xcode build setting \(setting.written), which Xcode expands only when it builds the app; give the entry as built instead: --domain \"\(BuildSetting.suggestion(for: string))\""
                    )
                }
                warnings.append(
                    "skipped \"\(string)\": it holds the unresolved Xcode build setting \(setting.written), and swcred uses only webcredentials: entries"
                )
                continue
            }
            let entry = try AssociatedDomainEntry(string)
            if seen.insert(entry).inserted { entries.append(entry) }
        }
        self.entries = entries
        self.readingWarnings = warnings
    }

    /// Reads the entitlement from an Xcode `.entitlements` XML property list.
    public init(plistData data: Data, source: String) throws {
        func invalid(_ problem: String) -> SharedWebCredentialsError {
            SharedWebCredentialsError(.invalidInput, "entitlements file \(source): \(problem)")
        }
        let plist: Any
        do {
            plist = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            throw invalid("not a readable property list (expected Xcode's XML .entitlements format)")
        }
        guard let dictionary = plist as? [String: Any] else { throw invalid("the top level is not a dictionary") }
        // A missing key means what an empty list means: an app with no associated domains.
        guard let value = dictionary[Self.associatedDomainsKey] else {
            try self.init(
                strings: [], readingWarnings: ["entitlements file \(source) has no \(Self.associatedDomainsKey) key"])
            return
        }
        guard let array = value as? [Any] else { throw invalid("\(Self.associatedDomainsKey) is not an array") }
        var strings: [String] = []
        for (index, item) in array.enumerated() {
            guard let string = item as? String else { throw invalid("item \(index) of the array is not a string") }
            strings.append(string)
        }
        do {
            try self.init(strings: strings, readingWarnings: [])
        } catch let error as SharedWebCredentialsError {
            throw invalid(error.message)
        }
    }

    /// Reads the entitlement from a `.entitlements` file on disk.
    public init(plistAt path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SharedWebCredentialsError(.invalidInput, "cannot read entitlements file \(path): check the path")
        }
        try self.init(plistData: data, source: path)
    }

    /// The entries that grant shared web credentials: `webcredentials:` (an Apple app) and
    /// `get_login_creds:` (an Android app's declared domains).
    public var webcredentialsEntries: [AssociatedDomainEntry] { entries.filter { $0.service.grantsCredentials } }

    /// Warnings about the entitlement: what reading it skipped, then the whole (too many domains,
    /// no webcredentials entry).
    public var warnings: [String] {
        var result = readingWarnings
        let domains = Set(entries.map { $0.host })
        if domains.count > Self.recommendedDomainLimit {
            result.append(
                "the entitlement lists \(domains.count) domains; each one's file is fetched and verified separately, so more domains mean slower verification and more ways for it to fail"
            )
        }
        if webcredentialsEntries.isEmpty {
            result.append("no webcredentials: entry, so this app can use no shared credentials")
        }
        return result
    }

    /// The `webcredentials:` (or, for an Android app, `get_login_creds:`) entry that governs
    /// `target`: an exact entry beats a wildcard, and a more specific wildcard beats a broader one.
    /// Nil if none covers it.
    public func webcredentialsEntry(covering target: DomainTarget) -> AssociatedDomainEntry? {
        entry(.webcredentials, covering: target) ?? entry(.getLoginCreds, covering: target)
    }
}
