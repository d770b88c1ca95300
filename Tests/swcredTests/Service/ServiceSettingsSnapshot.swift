import Foundation
import SwcredService

/// Every setting of a ``ServiceConfiguration`` by its path (`network.totalTimeout`,
/// `recheckPolicy.successInterval`), read by reflection so that a setting added later is compared
/// too, without this file knowing it.
enum ServiceSettingsSnapshot {
    /// Each leaf setting of `configuration` and its value as text.
    static func settings(of configuration: ServiceConfiguration) -> [String: String] {
        var settings: [String: String] = [:]
        collect(configuration, path: "", into: &settings)
        return settings
    }

    /// The paths whose values differ between `base` and `changed`, with the changed values
    /// (`absent` for a path only `base` has, such as `tcpListener` once it is set).
    static func changes(from base: ServiceConfiguration, to changed: ServiceConfiguration) -> [String: String] {
        let before = settings(of: base)
        let after = settings(of: changed)
        var changes: [String: String] = [:]
        for path in Set(before.keys).union(after.keys) where before[path] != after[path] {
            changes[path] = after[path] ?? "absent"
        }
        return changes
    }

    private static func collect(_ value: Any, path: String, into settings: inout [String: String]) {
        let mirror = Mirror(reflecting: value)
        switch mirror.displayStyle {
        case .optional:
            if let wrapped = mirror.children.first?.value {
                collect(wrapped, path: path, into: &settings)
            } else {
                settings[path] = "nil"
            }
        case .set:
            settings[path] = mirror.children.map { "\($0.value)" }.sorted().joined(separator: ",")
        case .struct where !(value is Duration) && !mirror.children.isEmpty:
            for child in mirror.children {
                let name = child.label ?? "?"
                collect(child.value, path: path.isEmpty ? name : path + "." + name, into: &settings)
            }
        default:
            settings[path] = "\(value)"
        }
    }
}
