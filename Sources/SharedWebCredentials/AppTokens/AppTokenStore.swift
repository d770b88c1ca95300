import Foundation

/// The `app_tokens` table (migration 0004): the bearer tokens apps use with `swcred serve`.
///
/// Only a keyed hash of each token is stored, and each row carries a MAC under the vault's
/// gate-state key over every column, so that someone who can edit the file but does not hold the
/// vault key can neither make a token nor widen one (another app, more permissions, a later
/// expiry, no consent): such a row fails closed with `integrityFailure`.
public struct AppTokenStore: Sendable {
    private static let table = "app_tokens"
    private let vault: Vault

    init(vault: Vault) {
        self.vault = vault
    }

    /// Creates a token for a registered app and returns it with its secret text, which is not
    /// stored anywhere: show it to the owner once. Appends a `token-create` entry to the audit log
    /// in the same transaction (its id and grant, never the token or its hash).
    ///
    /// - Throws: `missingEntitlement` when the app is not registered, `invalidInput` for an
    ///   empty permission set or an expiry that is not after `now`.
    public func create(
        app: ApplicationIdentifier, permissions: Set<AppPermission>, consent: ConsentMode, expiresAt: Date?,
        now: Date = Date()
    ) throws -> IssuedAppToken {
        guard !permissions.isEmpty else {
            throw SharedWebCredentialsError(
                .invalidInput, "a token needs at least one permission: request, add, delete or generate")
        }
        if let expiresAt, expiresAt <= now {
            throw SharedWebCredentialsError(.invalidInput, "the expiry must be in the future")
        }
        _ = try vault.apps.require(app)
        let random = SecureBytes.random(count: AppTokenFormat.randomLength)
        let record = AppTokenRecord(
            id: RandomBytes.array(count: 8).map { String(format: "%02x", $0) }.joined(), app: app,
            permissions: permissions, consent: consent, createdAt: Self.wholeSeconds(now),
            expiresAt: expiresAt.map(Self.wholeSeconds))
        try vault.write(grants: { db, keys, changes in
            let hash = keys.tokenHash(random)
            let mac = Self.mac(record, tokenHash: hash, keys: keys)
            try db.execute(
                """
                INSERT INTO app_tokens (id, token_hash, app, permissions, consent, created_at, expires_at, mac)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    .text(record.id), .blob(hash), .text(app.description), .text(AppPermission.listText(permissions)),
                    .text(consent.rawValue), .integer(Self.seconds(record.createdAt)),
                    StoreValue(record.expiresAt.map(Self.seconds), StoreValue.integer),
                    .blob(mac),
                ])
            changes.wrote(mac)
            try AuditChain.append(
                AuditEvent(
                    actor: .owner, operation: .tokenCreate, app: app.description, detail: Self.auditDetail(record)),
                at: Date(), db: db, keys: keys, path: vault.path)
        })
        return IssuedAppToken(record: record, token: AppTokenFormat.encode(random))
    }

    /// The tokens of `app` (or of every app), oldest first. A row that fails its MAC throws
    /// `integrityFailure`.
    public func list(app: ApplicationIdentifier? = nil) throws -> [AppTokenRecord] {
        try vault.read { db, keys in
            let rows =
                if let app {
                    try db.rows("\(Self.select) WHERE app = ? ORDER BY created_at, id", [.text(app.description)])
                } else {
                    try db.rows("\(Self.select) ORDER BY created_at, id")
                }
            // The engine chose the rows; a token of another app, found through a lying index, is
            // left out by its own authenticated app.
            return try rows.map { try verified($0, db: db, keys: keys) }.filter { record in
                app.map { record.app.description == $0.description } ?? true
            }
        }
    }

    /// The ids of the token rows that grant nothing because the sealed grant set does not hold
    /// them (put back behind swcred's back): listings mark them, and any revocation deletes them.
    public func ungrantedIDs() throws -> Set<String> {
        try vault.read { db, keys in
            try GrantSet.ungranted(Self.select, macColumn: 7, db: db, keys: keys, path: vault.path)
        }
    }

    /// Deletes the token with this id; returns whether there was one. A revocation appends a
    /// `token-revoke` entry to the audit log in the same transaction (the token's id and grant).
    /// It always goes through: it also deletes every row the sealed grant set does not hold,
    /// with an entry of its own (``GrantChanges/removeUngranted(db:keys:operation:)``).
    @discardableResult
    public func revoke(id: String) throws -> Bool {
        try vault.write(grants: { db, keys, changes -> Bool in
            let row = try db.row("\(Self.select) WHERE id = ?", [.text(id)])
            var entries: [AuditEvent] = []
            if let row {
                // A row that fails its MAC is revoked all the same; its entry says so instead of
                // repeating a grant that cannot be trusted.
                let record = try? verified(row, db: db, keys: keys)
                try changes.delete(from: "app_tokens", where: "id = ?", [.text(id)], db: db)
                entries.append(
                    AuditEvent(
                        actor: .owner, operation: .tokenRevoke, app: record?.app.description ?? row.text(2),
                        detail: record.map(Self.auditDetail) ?? "token \(id); its stored row failed authentication"))
            }
            if let removal = try changes.removeUngranted(db: db, keys: keys, operation: .tokenRevoke) {
                entries.append(removal)
            }
            if !entries.isEmpty { try AuditChain.append(entries, at: Date(), db: db, keys: keys, path: vault.path) }
            return row != nil
        })
    }

    /// What a token's audit entries say about it: its id and grant, never the token or its hash.
    static func auditDetail(_ record: AppTokenRecord) -> String {
        "token \(record.id); permissions \(AppPermission.listText(record.permissions)); expires "
            + (record.expiresAt.map { $0.formatted(.iso8601) } ?? "never") + "; consent \(record.consent.rawValue)"
    }

    /// The record of the token whose text is `token`, if it is well formed, stored, intact and
    /// not expired at `now`.
    ///
    /// - Throws: `vaultLocked` (the service answers 401) for a malformed, unknown (wrong or
    ///   revoked) or expired token, naming which; `integrityFailure` for an altered row.
    public func authenticate(_ token: SecureBytes, now: Date = Date()) throws -> AppTokenRecord {
        let random = try Self.randomPart(of: token)
        let record = try vault.read { db, keys in try Self.find(random, db: db, keys: keys, vault: vault) }
        return try Self.usable(record, at: now)
    }

    /// ``authenticate(_:now:)`` on the storage engine's threads: the caller suspends instead of
    /// blocking while the row is read.
    public func authenticate(_ token: SecureBytes, now: Date = Date()) async throws -> AppTokenRecord {
        let random = try Self.randomPart(of: token)
        let record = try await vault.readWithHeldKeys { [vault] db, keys in
            try Self.find(random, db: db, keys: keys, vault: vault)
        }
        return try Self.usable(record, at: now)
    }

    /// ``authenticate(_:now:)`` that also reads the token's app's stored verdicts in the same
    /// read transaction, once the token checks out: the service's verdicts route makes one read.
    package func authenticateReadingVerdicts(
        _ token: SecureBytes, now: Date = Date()
    ) async throws -> (record: AppTokenRecord, verdicts: [AssociationRecord]) {
        let random = try Self.randomPart(of: token)
        return try await vault.readWithHeldKeys { [vault] db, keys in
            let record = try Self.usable(Self.find(random, db: db, keys: keys, vault: vault), at: now)
            return (record, try vault.associations.all(app: record.app, db: db, keys: keys))
        }
    }

    /// A first read to do in the token's own read transaction once the token checks out: a
    /// password request's (``RequestPrefetch``) or a passkey assertion's (``RelyingPartyPrefetch``).
    package struct Prefetch<Read: Sendable>: Sendable {
        /// The facade for the token's app, or nil to read nothing ahead (a token of another app
        /// than the request names, or without the permission).
        let facade: @Sendable (AppTokenRecord) -> SharedWebCredentials?
        /// The read, with the facade, inside the token's transaction; the token's app's `apps`
        /// row when the token's statement read it.
        let read:
            @Sendable (SharedWebCredentials, any StoreReader, VaultKeys, AppRegistry.ReadRegistration?) throws -> Read
    }

    /// What a password request reads ahead: its app, stored verdict and credentials.
    package typealias RequestPrefetch = Prefetch<SharedWebCredentials.PrefetchedRequest>

    /// What a passkey assertion reads ahead: its app, the RP's stored verdict and passkeys.
    package typealias RelyingPartyPrefetch = Prefetch<SharedWebCredentials.PrefetchedRelyingParty>

    /// ``authenticate(_:now:)`` that also does `prefetch`'s read in the same read transaction,
    /// when the token is valid; the result goes to
    /// ``SharedWebCredentials/request(domain:account:includeShared:prefetched:confirmRelease:)`` or
    /// ``SharedWebCredentials/getPasskey(optionsJSON:prefetched:presence:)``.
    package func authenticate<Read>(
        _ token: SecureBytes, now: Date = Date(), prefetching prefetch: Prefetch<Read>
    )
        async throws -> (record: AppTokenRecord, prefetched: Read?)
    {
        let random = try Self.randomPart(of: token)
        let (record, prefetched) = try await vault.readWithHeldKeys { [vault] db, keys in
            // The token's row, its app's registration and the vault's sealed state in one
            // statement: one round trip to a database server where there were three.
            let hash = keys.tokenHash(random)
            guard let joined = try db.row("\(Self.selectWithRegistration) WHERE t.token_hash = ?", [.blob(hash)])
            else { return (AppTokenRecord?.none, Read?.none) }
            let tokenColumns = Self.columns.count
            let appColumns = AuthenticatedTable.apps.selectedColumns.count
            try GrantCheck.remember(
                sealedState: StoreRow(Array(joined.values.dropFirst(tokenColumns + appColumns))), db: db, keys: keys,
                path: vault.path)
            let record = try Self.record(
                StoreRow(Array(joined.values.prefix(tokenColumns))), hash: hash, db: db, keys: keys, vault: vault)
            guard let record, !record.isExpired(at: now), let facade = prefetch.facade(record) else {
                return (record, nil)
            }
            let registration =
                joined[tokenColumns] == .null
                ? nil : StoreRow(Array(joined.values[tokenColumns..<(tokenColumns + appColumns)]))
            return (
                record,
                try prefetch.read(
                    facade, db, keys,
                    facade.app.description == record.app.description
                        ? AppRegistry.ReadRegistration(row: registration) : nil)
            )
        }
        return (try Self.usable(record, at: now), prefetched)
    }

    private static func randomPart(of token: SecureBytes) throws -> SecureBytes {
        guard let random = AppTokenFormat.decode(token) else {
            throw SharedWebCredentialsError(
                .vaultLocked,
                "the app token is malformed: a token is \(AppTokenFormat.prefix) followed by \(AppTokenFormat.encodedLength) base64url characters, as `swcred app token create` printed it"
            )
        }
        return random
    }

    /// The found record, unless there is none or it expired at `now`.
    private static func usable(_ record: AppTokenRecord?, at now: Date) throws -> AppTokenRecord {
        guard let record else {
            throw SharedWebCredentialsError(
                .vaultLocked,
                "the app token is not valid (wrong, revoked, or made before the vault key was rotated): ask the vault owner for a new one with `swcred app token create`"
            )
        }
        if record.isExpired(at: now) {
            throw SharedWebCredentialsError(
                .vaultLocked,
                "the app token expired at \(record.expiresAt!.formatted(.iso8601)): ask the vault owner for a new one")
        }
        return record
    }

    /// The record of the token whose random part is `random`, as the transaction `db` sees it:
    /// nil when no row has its hash; `integrityFailure` for a row that fails its MAC.
    static func find(
        _ random: SecureBytes, db: any StoreReader, keys: VaultKeys, vault: Vault
    ) throws
        -> AppTokenRecord?
    {
        let hash = keys.tokenHash(random)
        return try record(
            db.row("\(select) WHERE token_hash = ?", [.blob(hash)]), hash: hash, db: db, keys: keys, vault: vault)
    }

    /// The record of a token `row` found by `hash` (``select``'s columns): nil when there is no row
    /// or it is not the row of that hash; `integrityFailure` for a row that fails its MAC or that
    /// is not in the sealed grant set.
    private static func record(
        _ row: StoreRow?, hash: [UInt8], db: any StoreReader, keys: VaultKeys, vault: Vault
    ) throws -> AppTokenRecord? {
        guard let row, let stored = row.blob(1), AuditChain.equal(stored, hash) else { return nil }
        let record = try verified(row, db: db, keys: keys, vault: vault)
        // An authentic row may still be one revoked and put back: only a row in the sealed grant
        // set lets a request in.
        try GrantCheck.require(
            row.blob(7), what: "The app token \(record.id)", db: db, keys: keys, path: vault.path)
        return record
    }

    /// Deletes every token in the same transaction as a vault key rotation: their hashes and MACs
    /// were keyed by the old key and cannot be recomputed without the tokens. Returns the
    /// `token-revoke` entry of each, read under the old `keys`, for the caller to append under
    /// the new key in the same transaction.
    static func revokeAll(_ db: any StoreWriter, keys: VaultKeys, vault: Vault, reason: String) throws -> [AuditEvent] {
        let events = try db.rows(select).map { row in
            // A row that fails its MAC is revoked all the same, as ``revoke(id:)`` does.
            let record = try? verified(row, db: db, keys: keys, vault: vault)
            let id = row.text(0) ?? "?"
            return AuditEvent(
                actor: .owner, operation: .tokenRevoke, app: record?.app.description ?? row.text(2),
                detail: (record.map(auditDetail) ?? "token \(id); its stored row failed authentication") + "; \(reason)"
            )
        }
        try db.execute("DELETE FROM app_tokens", [])
        return events
    }

    // MARK: Rows

    /// Every column of a token's row, in the order ``verified(_:db:keys:vault:)`` reads.
    private static let columns = [
        "id", "token_hash", "app", "permissions", "consent", "created_at", "expires_at", "mac",
    ]
    /// `SELECT` of ``columns``.
    static let select = "SELECT \(columns.joined(separator: ", ")) FROM app_tokens"
    /// ``select``'s columns (of `t`), then those of the token's app's registration (of `a`, all
    /// NULL when the app is not registered) as ``AppRegistry`` reads them.
    private static let selectWithRegistration =
        "SELECT \((columns.map { "t.\($0)" } + AuthenticatedTable.apps.selectedColumns.map { "a.\($0)" }).joined(separator: ", ")), m.* FROM app_tokens t LEFT JOIN apps a ON a.application_identifier = t.app LEFT JOIN (SELECT \(StateSeal.columns) FROM vault_meta WHERE id = 1) m ON 1 = 1"

    private func verified(_ row: StoreRow, db: any StoreReader, keys: VaultKeys) throws -> AppTokenRecord {
        try Self.verified(row, db: db, keys: keys, vault: vault)
    }

    private static func verified(
        _ row: StoreRow, db: any StoreReader, keys: VaultKeys, vault: Vault
    ) throws
        -> AppTokenRecord
    {
        guard let record = authentic(row, keys: keys) else {
            throw vault.recordFailure(
                db, keys: keys, what: "The app token \(row.text(0) ?? String(describing: row[0]))")
        }
        return record
    }

    /// The record of a token row (``select``'s columns) whose MAC holds under `keys`, or nil.
    static func authentic(_ row: StoreRow, keys: VaultKeys) -> AppTokenRecord? {
        guard let id = row.text(0), let appText = row.text(2), let app = try? ApplicationIdentifier(appText),
            let permissionsText = row.text(3), let permissions = try? AppPermission.parseList(permissionsText),
            let consent = row.text(4).flatMap(ConsentMode.init(rawValue:)), let createdAt = row.integer(5),
            let hash = row.blob(1), let stored = row.blob(7)
        else { return nil }
        let record = AppTokenRecord(
            id: id, app: app, permissions: permissions, consent: consent,
            createdAt: Date(timeIntervalSince1970: TimeInterval(createdAt)),
            expiresAt: row.integer(6).map { Date(timeIntervalSince1970: TimeInterval($0)) })
        let expected = mac(record, tokenHash: hash, keys: keys)
        // The stored text must be the canonical one the MAC was computed over.
        guard AuditChain.equal(stored, expected), AppPermission.listText(permissions) == permissionsText else {
            return nil
        }
        return record
    }

    private static func mac(_ record: AppTokenRecord, tokenHash: [UInt8], keys: VaultKeys) -> [UInt8] {
        keys.stateMAC(
            table: table,
            fields: [
                Array(record.id.utf8), tokenHash, Array(record.app.description.utf8),
                Array(AppPermission.listText(record.permissions).utf8), Array(record.consent.rawValue.utf8),
                integerField(seconds(record.createdAt)), record.expiresAt.map { integerField(seconds($0)) } ?? [],
            ])
    }

    private static func integerField(_ value: Int64) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }

    private static func seconds(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970.rounded(.down)) }

    private static func wholeSeconds(_ date: Date) -> Date { Date(timeIntervalSince1970: TimeInterval(seconds(date))) }
}

extension Vault {
    /// The service's app tokens in this vault.
    public var appTokens: AppTokenStore { AppTokenStore(vault: self) }
}

extension AppTokenStore.Prefetch where Read == SharedWebCredentials.PrefetchedRequest {
    /// Reads ahead for a password request for `domain` and `account`, with the facade `facade`
    /// makes for the token.
    package init(
        domain: DomainTarget, account: String?, facade: @escaping @Sendable (AppTokenRecord) -> SharedWebCredentials?
    ) {
        self.init(facade: facade) { facade, db, keys, registration in
            try facade.prefetchRequest(domain: domain, account: account, db: db, keys: keys, registration: registration)
        }
    }
}

extension AppTokenStore.Prefetch where Read == SharedWebCredentials.PrefetchedRelyingParty {
    /// Reads ahead for a passkey assertion whose options name the RP ID `rpID`, with the facade
    /// `facade` makes for the token.
    package init(relyingParty rpID: String, facade: @escaping @Sendable (AppTokenRecord) -> SharedWebCredentials?) {
        self.init(facade: facade) { facade, db, keys, registration in
            try facade.prefetchRelyingParty(rpID, db: db, keys: keys, registration: registration)
        }
    }
}
