/// One row a query returned: its values in the order of the query's columns.
///
/// Stores read rows by position (each store's queries name their columns in a fixed order), so
/// a row carries no column names.
package struct StoreRow: Sendable {
    /// The values, in the query's column order.
    package var values: [StoreValue]

    /// A row of `values`.
    package init(_ values: [StoreValue]) { self.values = values }

    /// The number of columns.
    package var count: Int { values.count }

    /// The value of column `index`.
    package subscript(index: Int) -> StoreValue { values[index] }

    /// Column `index` as an integer, or nil when it is NULL or of another class.
    package func integer(_ index: Int) -> Int64? { values[index].integer }

    /// Column `index` as a text, or nil when it is NULL or of another class.
    package func text(_ index: Int) -> String? { values[index].text }

    /// Column `index` as bytes, or nil when it is NULL or of another class.
    package func blob(_ index: Int) -> [UInt8]? { values[index].blob }
}
