/// What one read transaction has already read and checked, kept for the rest of that
/// transaction only: a read transaction sees one snapshot, so a value read once in it holds for
/// all of it. Each read transaction gets a new one from its engine; a write transaction gets none
/// (its own writes change what it reads).
///
/// It keeps the vault's sealed state (``SealedState``, its seal checked under a key), which
/// every grant check of a request needs (the token's, the app's, the verdict's): one read of
/// `vault_meta` and one seal check per request instead of one per check.
package final class ReadTransactionMemo {
    /// The sealed state as this transaction read it, and the id of the key its seal was checked under.
    var sealedState: (keyID: [UInt8], state: SealedState)?

    package init() {}
}
