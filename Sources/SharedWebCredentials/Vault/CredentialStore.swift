import Foundation

/// The owner's ungated access to the credentials of a vault.
///
/// Credentials are identified by (scheme, server, port, account): the server is lower-cased and
/// the scheme's default port (443 for https, 80 for http) counts as no port. Lookups go through keyed blind indexes; every record is sealed with
/// XChaCha20-Poly1305 and a record that fails authentication throws `.integrityFailure`
/// without affecting the others. The gated, app-facing facade sits on top of this store.
public struct CredentialStore: Sendable {
    let vault: Vault

    /// Adds a credential, or updates the password (and the details, when given) of an existing
    /// one. Nil `details` keeps an existing credential's details, and gives a new one none.
    @discardableResult
    public func upsert(
        server: String, port: Int? = nil, scheme: CredentialScheme = .https, account: String, password: SecureBytes,
        details: CredentialDetails? = nil
    ) throws -> UpsertOutcome {
        try batch {
            try $0.upsert(
                server: server, port: port, scheme: scheme, account: account, password: password, details: details)
        }
    }

    /// Runs several changes in one transaction (all or nothing), for imports and bulk edits.
    public func batch<T>(_ body: (CredentialBatch) throws -> T) throws -> T {
        try vault.write { db, keys, commitment in
            try body(CredentialBatch(db: db, keys: keys, commitment: commitment, vault: vault))
        }
    }

    /// The credentials saved for `server` and `port` (nil for the scheme's default) over `scheme`,
    /// only the one for `account` when it is given. Throws `.integrityFailure` if a matching
    /// record is damaged.
    public func find(
        server: String, port: Int? = nil, scheme: CredentialScheme = .https, account: String? = nil
    ) throws -> [Credential] {
        let key = try CredentialKey(server: server, port: port, scheme: scheme)
        return try vault.read { db, keys in try Self.find(key, account: account, db: db, keys: keys, vault: vault) }
    }

    /// ``find(server:port:account:)`` as the transaction `db` sees it.
    static func find(
        _ key: CredentialKey, account: String?, db: any StoreReader, keys: VaultKeys, vault: Vault
    )
        throws -> [Credential]
    {
        var found: [Credential] = []
        let serverIndex = keys.serverIndex(key)
        if let account {
            let accountIndex = keys.accountIndex(key, account: account)
            try db.forEachRowInPlace(selectByServerAndAccount, [.blob(serverIndex), .blob(accountIndex)]) { row in
                found.append(try open(row, db: db, keys: keys, vault: vault, matching: serverIndex, accountIndex))
            }
        } else {
            try db.forEachRowInPlace(selectByServer, [.blob(serverIndex)]) { row in
                found.append(try open(row, db: db, keys: keys, vault: vault, matching: serverIndex))
            }
        }
        return CredentialOrder.sorted(found)
    }

    /// ``open(_:db:keys:vault:)`` for a row looked up by its indexes: the engine chose the row, and
    /// another server's row is just as authentic, so its own indexes, which its associated data
    /// binds, must be the ones asked for.
    private static func open(
        _ row: some StoreRowView, db: any StoreReader, keys: VaultKeys, vault: Vault, matching serverIndex: [UInt8],
        _ accountIndex: [UInt8]? = nil
    ) throws -> Credential {
        guard row.blob(1, equals: serverIndex), accountIndex.map({ row.blob(2, equals: $0) }) ?? true else {
            throw answeredWithAnother(vault)
        }
        return try open(row, db: db, keys: keys, vault: vault)
    }

    /// The error for a row that is authentic but not the one a lookup asked for.
    private static func answeredWithAnother(_ vault: Vault) -> SharedWebCredentialsError {
        SharedWebCredentialsError(
            .integrityFailure,
            "The database of \(vault.path) answered a credential lookup with another server's or account's credential: it does not answer queries truthfully, so nothing it holds is trusted. Restore the vault from a backup."
        )
    }

    /// The credential for `key` and `account` as the transaction `db` sees it, or nil.
    static func findOne(
        _ key: CredentialKey, account: String, db: any StoreReader, keys: VaultKeys, vault: Vault
    ) throws -> Credential? {
        let accountIndex = keys.accountIndex(key, account: account)
        guard let row = try db.row("\(columns) WHERE account_index = ?", [.blob(accountIndex)]) else { return nil }
        return try open(row, db: db, keys: keys, vault: vault, matching: keys.serverIndex(key), accountIndex)
    }

    /// Deletes the credential for (scheme, server, port, account). Returns whether one existed.
    @discardableResult
    public func delete(
        server: String, port: Int? = nil, scheme: CredentialScheme = .https, account: String
    ) throws -> Bool {
        try batch { try $0.delete(server: server, port: port, scheme: scheme, account: account) }
    }

    /// Every (server, port, scheme) with at least one credential, sorted. Opens every record, so
    /// it throws `.integrityFailure` if any is damaged.
    public func servers() throws -> [CredentialServer] {
        var servers = Set<CredentialServer>()
        try forEach { servers.insert(CredentialServer(server: $0.server, port: $0.port, scheme: $0.scheme)) }
        return servers.sorted { lhs, rhs in
            (lhs.server, lhs.port ?? 0, lhs.scheme.listOrder) < (rhs.server, rhs.port ?? 0, rhs.scheme.listOrder)
        }
    }

    /// Every credential, sorted by server, port, scheme and account. Opens every record, so it throws
    /// `.integrityFailure` if any is damaged.
    public func all() throws -> [Credential] {
        var found: [Credential] = []
        try forEach { found.append($0) }
        return CredentialOrder.sorted(found)
    }

    /// The https credentials of every server that one of `entries` could cover, found through the
    /// blind indexes without opening any other record: an exact entry looks up its server's index,
    /// a wildcard `*.example.com` that of `example.com` and the parent-domain index of
    /// `example.com` (every server under it, whose http credentials are dropped: apps reach
    /// https only). Sorted by server, port and account.
    ///
    /// The caller still checks each one against the entries (ports, and the exact-entry-first
    /// rule), as ``SharedWebCredentials/request(domain:account:includeShared:)`` does: an index
    /// row that an attacker added leads only to records the entries then reject.
    public func candidates(coveredBy entries: [AssociatedDomainEntry]) throws -> [Credential] {
        try vault.read { db, keys in try Self.candidates(coveredBy: entries, db: db, keys: keys, vault: vault) }
    }

    /// ``candidates(coveredBy:)`` as the transaction `db` sees it.
    static func candidates(
        coveredBy entries: [AssociatedDomainEntry], db: any StoreReader, keys: VaultKeys, vault: Vault
    ) throws -> [Credential] {
        var serverIndexes = Set<[UInt8]>()
        for entry in entries {
            // The entry's own host: an exact entry's server, or a wildcard's bare domain.
            serverIndexes.insert(keys.serverIndex(try CredentialKey(server: entry.host, port: entry.port)))
            if entry.isWildcard {
                serverIndexes.formUnion(try ParentDomains.serverIndexes(under: entry.host, db: db, keys: keys))
            }
        }
        var found: [Credential] = []
        for index in serverIndexes {
            try db.forEachRowInPlace(selectByServer, [.blob(index)]) {
                let credential = try open($0, db: db, keys: keys, vault: vault)
                if credential.scheme == .https { found.append(credential) }
            }
        }
        return CredentialOrder.sorted(found)
    }

    /// Calls `body` with every credential, in no particular order, inside one read transaction
    /// (for export, and for ``all()`` and ``servers()``). Throws `.integrityFailure` at the first
    /// damaged record.
    public func forEach(_ body: (Credential) throws -> Void) throws {
        try vault.read { db, keys in
            try db.forEachRowInPlace(Self.columns, []) { try body(try Self.open($0, db: db, keys: keys, vault: vault)) }
        }
    }

    /// The number of credentials.
    public func count() throws -> Int {
        try vault.read { db, _ in Int(try db.integer("SELECT COUNT(*) FROM credentials") ?? 0) }
    }

    /// Opens every record and counts those that fail authentication. ``Vault/integrityReport()``
    /// also checks the set of records against its commitment.
    public func verify() throws -> (checked: Int, damaged: Int) {
        try vault.read { db, keys in try Self.verify(db, keys: keys) }
    }

    static func verify(_ db: any StoreReader, keys: VaultKeys) throws -> (checked: Int, damaged: Int) {
        var checked = 0
        var damaged = 0
        try db.forEachRowInPlace(Self.columns, []) { row in
            checked += 1
            if Self.openIfAuthentic(row, keys: keys) == nil { damaged += 1 }
        }
        return (checked, damaged)
    }

    // MARK: Records

    /// Opens one `credentials` row, or throws the integrity error for it.
    static func open(_ row: some StoreRowView, db: any StoreReader, keys: VaultKeys, vault: Vault) throws -> Credential
    {
        guard let credential = openIfAuthentic(row, keys: keys) else {
            throw vault.recordFailure(db, keys: keys, what: "A credential")
        }
        return credential
    }

    /// The columns every credential query selects, in the order ``openIfAuthentic(_:keys:)`` reads.
    static let selected = "id, server_index, account_index, sealed, version"
    /// The query of every credential, to which a WHERE clause may be added.
    static let columns = "SELECT \(selected) FROM credentials"
    /// The credentials of one server, by its blind index.
    private static let selectByServer = "\(columns) WHERE server_index = ?"
    /// The credential of one server and account, by their blind indexes.
    private static let selectByServerAndAccount = "\(columns) WHERE server_index = ? AND account_index = ?"

    /// Opens one `credentials` row (columns as in ``columns``); nil if it fails authentication
    /// or does not decode.
    static func openIfAuthentic(_ row: some StoreRowView, keys: VaultKeys) -> Credential? {
        guard let version = row.integer(4) else { return nil }
        // Each `?? nil` flattens one `withBlob`'s optional: nil when a column is not a blob.
        let payload: SecureBytes? =
            row.withBlob(0) { id in
                row.withBlob(1) { serverIndex in
                    row.withBlob(2) { accountIndex in
                        VaultKeys.withCredentialAssociatedData(
                            id: id, serverIndex: serverIndex, accountIndex: accountIndex, version: version
                        ) { associatedData in
                            row.withBlob(3) {
                                AuthenticatedEncryption.open($0, key: keys.recordKey, associatedData: associatedData)
                            } ?? nil
                        }
                    } ?? nil
                } ?? nil
            } ?? nil
        return payload.flatMap(CredentialPayload.decode)
    }

    /// Seals a credential for row `id` at `version` and writes it: insert or replace, or with
    /// `onlyIfAbsent` insert unless (scheme, server, port, account) exists. Returns whether a row was
    /// written; the caller records the change in the commitment.
    @discardableResult
    static func store(
        _ db: any StoreWriter, keys: VaultKeys, id: [UInt8], version: Int64, key: CredentialKey, account: String,
        password: SecureBytes, details: CredentialDetails, created: Date, modified: Date,
        accountIndex knownAccountIndex: [UInt8]? = nil, onlyIfAbsent: Bool = false
    ) throws -> Bool {
        let serverIndex = keys.serverIndex(key)
        let accountIndex = knownAccountIndex ?? keys.accountIndex(key, account: account)
        let payload = CredentialPayload.encode(
            scheme: key.scheme, server: key.server, port: key.port, account: account, password: password,
            details: details,
            created: created, modified: modified)
        let sealed = AuthenticatedEncryption.seal(
            payload, key: keys.recordKey,
            associatedData: VaultKeys.credentialAssociatedData(
                id: id, serverIndex: serverIndex, accountIndex: accountIndex, version: version))
        let sql =
            onlyIfAbsent
            ? "INSERT INTO credentials (id, server_index, account_index, sealed, version) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING"
            : """
            INSERT INTO credentials (id, server_index, account_index, sealed, version) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (server_index, account_index) DO UPDATE
            SET id = excluded.id, sealed = excluded.sealed, version = excluded.version
            """
        let written = try db.execute(
            sql, [.blob(id), .blob(serverIndex), .blob(accountIndex), .blob(sealed), .integer(version)])
        guard written > 0 else { return false }
        try ParentDomains.insert(server: key.server, serverIndex: serverIndex, db: db, keys: keys)
        return true
    }

    /// Re-seals every credential under `newKeys` (new indexes, same ids and versions). Part of key
    /// rotation, whose caller rebuilds the commitment.
    static func reencryptAll(
        _ db: any StoreWriter, from oldKeys: VaultKeys, to newKeys: VaultKeys, path: String
    )
        throws
    {
        let rows = try db.rows(Self.columns)
        try db.execute("DELETE FROM credentials", [])
        try db.execute("DELETE FROM credential_domains", [])
        for row in rows {
            guard let credential = openIfAuthentic(row, keys: oldKeys), let id = row.blob(0),
                let version = row.integer(4)
            else {
                throw SharedWebCredentialsError(
                    .integrityFailure,
                    "A credential in \(path) failed authentication, so the key was not rotated (nothing changed). Find it with `swcred status --verify`."
                )
            }
            try store(
                db, keys: newKeys, id: id, version: version,
                key: CredentialKey(server: credential.server, port: credential.port, scheme: credential.scheme),
                account: credential.account,
                password: credential.password, details: credential.details, created: credential.created,
                modified: credential.modified)
        }
    }
}

/// A server, port and scheme with saved credentials.
public struct CredentialServer: Sendable, Hashable {
    /// The normalised host name.
    public let server: String
    /// The port, only when not the scheme's default.
    public let port: Int?
    /// `https` or `http`.
    public let scheme: CredentialScheme
}

/// Changes made inside one transaction of ``CredentialStore/batch(_:)``.
public struct CredentialBatch {
    let db: any StoreWriter
    let keys: VaultKeys
    let commitment: RecordCommitment
    let vault: Vault

    /// Adds a credential, or updates the password (and the details, when given) of an existing
    /// one. Nil `details` keeps an existing credential's details, and gives a new one none.
    /// `created` and `modified` (an import's times) default to now; an update keeps the
    /// existing creation time. The account may be empty (a password-only login, as browsers and
    /// other managers keep them; the gated facade still asks apps for one); the password may not,
    /// and no field may be longer than ``Credential/maximumFieldBytes`` (`.invalidInput`).
    @discardableResult
    public func upsert(
        server: String, port: Int? = nil, scheme: CredentialScheme = .https, account: String, password: SecureBytes,
        details: CredentialDetails? = nil, created: Date? = nil, modified: Date? = nil
    ) throws -> UpsertOutcome {
        let key = try CredentialKey(server: server, port: port, scheme: scheme)
        guard !password.isEmpty else {
            throw SharedWebCredentialsError(.invalidInput, "The password is empty: give a non-empty password.")
        }
        try Credential.checkFieldSizes(account: account, password: password, details: details ?? .none)
        let index = keys.accountIndex(key, account: account)
        let now = Date()
        // Most upserts of an import are new: try the insert first, look up only on a conflict.
        let newID = RandomBytes.array(count: 16)
        if try CredentialStore.store(
            db, keys: keys, id: newID, version: 1, key: key, account: account, password: password,
            details: details ?? .none, created: created ?? modified ?? now, modified: modified ?? now,
            accountIndex: index, onlyIfAbsent: true)
        {
            commitment.insertCredential(id: newID, version: 1, keys: keys)
            return .added
        }
        let row = try db.row("\(CredentialStore.columns) WHERE account_index = ?", [.blob(index)])
        guard let row, let id = row.blob(0), let version = row.integer(4) else {
            throw SharedWebCredentialsError(
                .internalError, "A credential vanished inside a transaction; please report this.")
        }
        let existing = try CredentialStore.open(row, db: db, keys: keys, vault: vault)
        let details = details ?? existing.details
        if existing.password.isEqual(to: password), existing.details == details { return .unchanged }
        let next = try StoredNumber.adding(1, to: version, "The version of a credential", path: vault.path)
        try CredentialStore.store(
            db, keys: keys, id: id, version: next, key: key, account: account, password: password,
            details: details, created: existing.created, modified: modified ?? now, accountIndex: index)
        commitment.removeCredential(id: id, version: version, keys: keys)
        commitment.insertCredential(id: id, version: next, keys: keys)
        return .updated
    }

    /// The number of credentials, as this transaction sees it.
    public func count() throws -> Int {
        Int(try db.integer("SELECT COUNT(*) FROM credentials") ?? 0)
    }

    /// The credential for (scheme, server, port, account) as this transaction sees it, or nil.
    public func find(
        server: String, port: Int? = nil, scheme: CredentialScheme = .https, account: String
    ) throws -> Credential? {
        let key = try CredentialKey(server: server, port: port, scheme: scheme)
        let row = try db.row(
            "\(CredentialStore.columns) WHERE account_index = ?", [.blob(keys.accountIndex(key, account: account))])
        return try row.map { try CredentialStore.open($0, db: db, keys: keys, vault: vault) }
    }

    /// Deletes the credential for (scheme, server, port, account). Returns whether one existed.
    @discardableResult
    public func delete(
        server: String, port: Int? = nil, scheme: CredentialScheme = .https, account: String
    ) throws -> Bool {
        let key = try CredentialKey(server: server, port: port, scheme: scheme)
        let index = keys.accountIndex(key, account: account)
        let deleted = try db.returningRow(
            "DELETE FROM credentials WHERE account_index = ? RETURNING id, version", [.blob(index)])
        guard let deleted, let id = deleted.blob(0), let version = deleted.integer(1) else { return false }
        commitment.removeCredential(id: id, version: version, keys: keys)
        try ParentDomains.removeIfUnused(server: key.server, serverIndex: keys.serverIndex(key), db: db)
        return true
    }

    /// Gives the credential for (scheme, server, port, account) the account name `newAccount`,
    /// keeping its password, details and dates. Throws `itemNotFound` when there is none, and
    /// `invalidInput` when `newAccount` is empty or already has a credential on that server.
    public func rename(
        server: String, port: Int? = nil, scheme: CredentialScheme = .https, account: String,
        to newAccount: String
    ) throws {
        let key = try CredentialKey(server: server, port: port, scheme: scheme)
        guard !newAccount.isEmpty else {
            throw SharedWebCredentialsError(.invalidInput, "The new account name is empty: give a non-empty account.")
        }
        if newAccount.utf8.count > Credential.maximumFieldBytes {
            throw Credential.fieldTooLong("new account name", bytes: newAccount.utf8.count)
        }
        let newIndex = keys.accountIndex(key, account: newAccount)
        let taken = try db.row("SELECT 1 FROM credentials WHERE account_index = ?", [.blob(newIndex)]) != nil
        guard !taken else {
            throw SharedWebCredentialsError(
                .invalidInput,
                "\(key.server) already has a credential for the new account name; remove or rename that one first. Nothing was changed."
            )
        }
        let deleted = try db.returningRow(
            "DELETE FROM credentials WHERE account_index = ? RETURNING \(CredentialStore.selected)",
            [.blob(keys.accountIndex(key, account: account))])
        guard let deleted, let id = deleted.blob(0), let version = deleted.integer(4) else {
            throw SharedWebCredentialsError(
                .itemNotFound, "No credential for that account on \(key.server); nothing was renamed.")
        }
        let existing = try CredentialStore.open(deleted, db: db, keys: keys, vault: vault)
        let next = try StoredNumber.adding(1, to: version, "The version of a credential", path: vault.path)
        try CredentialStore.store(
            db, keys: keys, id: id, version: next, key: key, account: newAccount,
            password: existing.password, details: existing.details, created: existing.created,
            modified: existing.modified, accountIndex: newIndex)
        commitment.removeCredential(id: id, version: version, keys: keys)
        commitment.insertCredential(id: id, version: next, keys: keys)
    }
}
