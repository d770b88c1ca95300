import Foundation

/// An app's associated-domains entitlement: its list of entries, read from an Xcode
/// `.entitlements` property list or from strings (SPEC.md §2).
public struct Entitlements: Hashable, Sendable {
    /// The plist key that holds the entries.
    public static let associatedDomainsKey = "com.apple.developer.associated-domains"
    /// Apple's advice is to keep an app to about 20 to 30 domains; more draws a warning.
    public static let recommendedDomainLimit = 30

    /// Every entry, in the order given, duplicates removed.
    public let entries: [AssociatedDomainEntry]

    /// Validates entries given as strings; the first bad one throws with the rule it broke.
    public init(strings: [String]) throws {
        var seen = Set<AssociatedDomainEntry>()
        var entries: [AssociatedDomainEntry] = []
        for string in strings {
            let entry = try AssociatedDomainEntry(string)
            if seen.insert(entry).inserted { entries.append(entry) }
        }
        self.entries = entries
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
        guard let value = dictionary[Self.associatedDomainsKey] else {
            throw invalid("no \(Self.associatedDomainsKey) key")
        }
        guard let array = value as? [Any] else { throw invalid("\(Self.associatedDomainsKey) is not an array") }
        var strings: [String] = []
        for (index, item) in array.enumerated() {
            guard let string = item as? String else { throw invalid("item \(index) of the array is not a string") }
            strings.append(string)
        }
        try self.init(strings: strings)
    }

    /// Reads the entitlement from a `.entitlements` file on disk.
    public init(plistAt path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SharedWebCredentialsError(.invalidInput, "cannot read entitlements file \(path): check the path")
        }
        try self.init(plistData: data, source: path)
    }

    /// The entries that grant shared web credentials.
    public var webcredentialsEntries: [AssociatedDomainEntry] { entries.filter { $0.service == .webcredentials } }

    /// Warnings about the entitlement as a whole (too many domains, no webcredentials entry).
    public var warnings: [String] {
        var result: [String] = []
        let domains = Set(entries.map { $0.host })
        if domains.count > Self.recommendedDomainLimit {
            result.append(
                "the entitlement lists \(domains.count) domains; Apple recommends about 20 to 30 per app")
        }
        if webcredentialsEntries.isEmpty {
            result.append("no webcredentials: entry, so this app can use no shared credentials")
        }
        return result
    }

    /// The `webcredentials:` entry that governs `target`: an exact entry beats a wildcard, and a
    /// more specific wildcard beats a broader one. Nil if none covers it.
    public func webcredentialsEntry(covering target: DomainTarget) -> AssociatedDomainEntry? {
        entry(.webcredentials, covering: target)
    }
}
