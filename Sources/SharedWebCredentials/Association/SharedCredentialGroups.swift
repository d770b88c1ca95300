import Foundation
import SharedWebCredentialsData

/// Domains that share one sign-in backend, from Apple's `shared-credentials.json`
/// (password-manager-resources, embedded in the binary).
///
/// A `shared` group's domains all accept each other's credentials; a `from`/`to` entry says that
/// credentials saved for the `from` domains work on the `to` domains (not the other way round).
/// swcred never merges these silently: ``SharedWebCredentials/request(domain:account:includeShared:)``
/// uses them only when asked, and only for domains the app is approved for too.
public enum SharedCredentialGroups {
    private struct Entry: Decodable {
        var shared: [String]?
        var from: [String]?
        var to: [String]?
    }

    /// For each domain, the other domains whose saved credentials also work on it.
    private static let related: [String: Set<String>] = {
        guard let entries = try? JSONDecoder().decode([Entry].self, from: Data(EmbeddedSharedCredentialsData.json.utf8))
        else { return [:] }
        var related: [String: Set<String>] = [:]
        for entry in entries {
            if let shared = entry.shared {
                for domain in shared {
                    related[domain.lowercased(), default: []].formUnion(shared.map { $0.lowercased() })
                }
            }
            if let from = entry.from, let to = entry.to {
                for domain in to { related[domain.lowercased(), default: []].formUnion(from.map { $0.lowercased() }) }
            }
        }
        for domain in related.keys { related[domain]?.remove(domain) }
        return related
    }()

    /// The domains whose saved credentials also work on `host`, sorted; empty when none are known.
    public static func domains(sharingCredentialsWith host: String) -> [String] {
        related[host.lowercased()].map { $0.sorted() } ?? []
    }

    /// The embedded `shared-credentials.json`, byte for byte as committed.
    public static var embeddedJSON: String { EmbeddedSharedCredentialsData.json }
}
