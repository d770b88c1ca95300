/// One row of a query read in place: its blobs are the engine's own bytes, lent for the length of
/// a call, not copied into arrays.
///
/// For queries that open many records in a row (a request without a domain opens every one of
/// the app's credentials; export and integrity checks open them all): copying each row's blobs
/// into a ``StoreRow`` of arrays cost four allocations, four copies and four releases a record,
/// 8% of such a request's instructions. A view is valid only inside the
/// ``StoreReader/forEachRowInPlace(_:_:_:)`` body that received it: never keep one.
package protocol StoreRowView {
    /// Column `index` as an integer, or nil when it is NULL or of another class.
    func integer(_ index: Int) -> Int64?

    /// Calls `body` with the bytes of column `index`, valid only during the call; nil (and
    /// `body` is not called) when the column is NULL or not a blob.
    func withBlob<Result>(_ index: Int, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result?
}

extension StoreRowView {
    /// Whether column `index` is a blob of exactly `bytes`.
    package func blob(_ index: Int, equals bytes: [UInt8]) -> Bool {
        withBlob(index) { $0.elementsEqual(bytes) } ?? false
    }
}

extension StoreRow: StoreRowView {
    package func withBlob<Result>(
        _ index: Int, _ body: (UnsafeRawBufferPointer) throws -> Result
    ) rethrows
        -> Result?
    {
        guard case .blob(let bytes) = values[index] else { return nil }
        return try bytes.withUnsafeBytes(body)
    }
}

extension StoreReader {
    /// ``forEachRow(_:_:_:)`` for an engine that reads every row into a ``StoreRow`` anyway.
    package func forEachRowInPlace(
        _ sql: String, _ arguments: [StoreValue], _ body: (any StoreRowView) throws -> Void
    ) throws {
        try forEachRow(sql, arguments) { try body($0) }
    }
}
