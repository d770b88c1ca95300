import Foundation

/// One column's value as the vault stores it, whichever engine holds the vault: the four storage
/// classes the schema uses (and SQLite's REAL, which it never writes but may read).
///
/// The stores above the engine build and read rows only in these terms, so that a row's MAC
/// (``VaultKeys/stateMAC(table:values:)``) covers the same bytes on every engine.
package enum StoreValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    /// A blob of `data`'s bytes.
    package init(_ data: Data) { self = .blob(Array(data)) }

    /// A blob of `bytes`.
    package init(_ bytes: [UInt8]) { self = .blob(bytes) }

    /// An integer.
    package init(_ integer: Int64) { self = .integer(integer) }

    /// An integer.
    package init(_ integer: Int) { self = .integer(Int64(integer)) }

    /// A text.
    package init(_ text: String) { self = .text(text) }

    /// NULL for nil, else the value `wrap` makes of it.
    package init<T>(_ optional: T?, _ wrap: (T) -> StoreValue) { self = optional.map(wrap) ?? .null }

    /// Whether this is NULL.
    package var isNull: Bool { if case .null = self { true } else { false } }

    /// The integer, or nil for any other class.
    package var integer: Int64? { if case .integer(let value) = self { value } else { nil } }

    /// The text, or nil for any other class.
    package var text: String? { if case .text(let value) = self { value } else { nil } }

    /// The blob's bytes, or nil for any other class.
    package var blob: [UInt8]? { if case .blob(let value) = self { value } else { nil } }
}

extension StoreValue: CustomStringConvertible {
    /// The value as SQL would show it (texts quoted), for error messages about rows that failed
    /// authentication: never used for sealed columns.
    package var description: String {
        switch self {
        case .null: "NULL"
        case .integer(let value): String(value)
        case .real(let value): String(value)
        case .text(let value): String(reflecting: value)
        case .blob(let bytes): "<\(bytes.count) bytes>"
        }
    }
}
