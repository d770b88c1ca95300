import Foundation
import GRDB

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
        try vault.write { db, keys in
            let hash = keys.tokenHash(random)
            try db.execute(
                sql: """
                    INSERT INTO app_tokens (id, token_hash, app, permissions, consent, created_at, expires_at, mac)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    record.id, Data(hash), app.description, AppPermission.listText(permissions),
                    consent.rawValue, Self.seconds(record.createdAt), record.expiresAt.map(Self.seconds),
                    Data(Self.mac(record, tokenHash: hash, keys: keys)),
                ])
            try AuditChain.append(
                AuditEvent(
                    actor: .owner, operation: .tokenCreate, app: app.description, detail: Self.auditDetail(record)),
                at: Date(), db: db, keys: keys, path: vault.path)
        }
        return IssuedAppToken(record: record, token: AppTokenFormat.encode(random))
    }

    /// The tokens of `app` (or of every app), oldest first. A row that fails its MAC throws
    /// `integrityFailure`.
    public func list(app: ApplicationIdentifier? = nil) throws -> [AppTokenRecord] {
        try vault.read { db, keys in
            let rows =
                if let app {
                    try Row.fetchAll(
                        db, sql: "SELECT * FROM app_tokens WHERE app = ? ORDER BY created_at, id",
                        arguments: [app.description])
                } else {
                    try Row.fetchAll(db, sql: "SELECT * FROM app_tokens ORDER BY created_at, id")
                }
            return try rows.map { try verified($0, db: db, keys: keys) }
        }
    }

    /// Deletes the token with this id; returns whether there was one. A revocation appends a
    /// `token-revoke` entry to the audit log in the same transaction (the token's id and grant).
    @discardableResult
    public func revoke(id: String) throws -> Bool {
        try vault.write { db, keys -> Bool in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM app_tokens WHERE id = ?", arguments: [id]) else {
                return false
            }
            // A row that fails its MAC is revoked all the same; its entry says so instead of
            // repeating a grant that cannot be trusted.
            let record = try? verified(row, db: db, keys: keys)
            try db.execute(sql: "DELETE FROM app_tokens WHERE id = ?", arguments: [id])
            try AuditChain.append(
                AuditEvent(
                    actor: .owner, operation: .tokenRevoke, app: record?.app.description ?? (row["app"] as String?),
                    detail: record.map(Self.auditDetail) ?? "token \(id); its stored row failed authentication"),
                at: Date(), db: db, keys: keys, path: vault.path)
            return true
        }
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
        guard let random = AppTokenFormat.decode(token) else {
            throw SharedWebCredentialsError(
                .vaultLocked,
                "the app token is malformed: a token is \(AppTokenFormat.prefix) followed by \(AppTokenFormat.encodedLength) base64url characters, as `swcred app token create` printed it"
            )
        }
        let record = try vault.readSingleStatement { db, keys -> AppTokenRecord? in
            let hash = keys.tokenHash(random)
            guard
                let row = try Row.fetchOne(
                    db.cachedStatement(sql: "SELECT * FROM app_tokens WHERE token_hash = ?"), arguments: [Data(hash)])
            else { return nil }
            let stored: Data = row["token_hash"]
            let matches = stored.withUnsafeBytes { left in hash.withUnsafeBytes { ConstantTime.equals(left, $0) } }
            guard matches else { return nil }
            return try verified(row, db: db, keys: keys)
        }
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

    /// Deletes every token in the same transaction as a vault key rotation: their hashes and MACs
    /// were keyed by the old key and cannot be recomputed without the tokens. Returns how many.
    static func deleteAll(_ db: Database) throws -> Int {
        try db.execute(sql: "DELETE FROM app_tokens")
        return db.changesCount
    }

    // MARK: Rows

    private func verified(_ row: Row, db: Database, keys: VaultKeys) throws -> AppTokenRecord {
        let id: String = row["id"]
        let damaged = { vault.recordFailure(db, keys: keys, what: "The app token \(id)") }
        guard let app = try? ApplicationIdentifier(row["app"] as String),
            let permissions = try? AppPermission.parseList(row["permissions"]),
            let consent = ConsentMode(rawValue: row["consent"])
        else { throw damaged() }
        let record = AppTokenRecord(
            id: id, app: app, permissions: permissions, consent: consent,
            createdAt: Date(timeIntervalSince1970: TimeInterval(row["created_at"] as Int64)),
            expiresAt: (row["expires_at"] as Int64?).map { Date(timeIntervalSince1970: TimeInterval($0)) })
        let hash = [UInt8](row["token_hash"] as Data)
        let stored: Data = row["mac"]
        let expected = Self.mac(record, tokenHash: hash, keys: keys)
        let intact = stored.withUnsafeBytes { left in expected.withUnsafeBytes { ConstantTime.equals(left, $0) } }
        // The stored text must be the canonical one the MAC was computed over.
        guard intact, AppPermission.listText(permissions) == row["permissions"] as String else { throw damaged() }
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
