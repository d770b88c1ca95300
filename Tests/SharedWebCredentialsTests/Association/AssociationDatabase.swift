import Foundation
import GRDB
import TestSupport

@testable import SharedWebCredentials

/// A real vault (raw key, so no KDF) for the association tests: its registry and verdict store
/// write authenticated rows, and `queue` gives the raw connection for constraint tests.
struct AssociationDatabase {
    let directory: TemporaryDirectory
    let vault: Vault

    /// The vault's SQLite connection.
    var queue: DatabaseQueue { vault.database }

    init() throws {
        directory = try TemporaryDirectory()
        vault = try Vault.create(
            at: directory.path("vault.sqlite"), protection: .rawKey(SecureBytes.random(count: KeyFile.length)))
    }
}
