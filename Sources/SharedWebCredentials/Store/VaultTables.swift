/// The tables of a vault and their columns, the same on both engines (`Migrations/` and
/// `Migrations/postgresql/`; `VaultTablesTests` holds this list to both schemas). Parents come
/// before the tables that reference them, so rows can be copied in this order.
package enum VaultTables {
    /// One table: its name, its columns and the order its rows are read in (its primary key).
    package struct Table: Sendable {
        package let name: String
        package let columns: [String]
        package let order: String
    }

    /// Every table that holds vault data; not the migrations' own bookkeeping.
    package static let all: [Table] = [
        Table(
            name: "vault_meta",
            columns: [
                "id", "format_version", "kdf_algorithm", "kdf_salt", "kdf_opslimit", "kdf_memlimit", "key_id",
                "wrapped_key", "record_commitment", "audit_head", "audit_anchor", "failed_guesses", "next_guess_at",
                "key_epoch",
                "grant_set", "state_seal", "audit_checkpoint",
            ], order: "id"),
        Table(
            name: "apps",
            columns: ["application_identifier", "entitlements", "registered_at", "mac", "certificate_fingerprints"],
            order: "application_identifier"),
        Table(
            name: "associations",
            columns: [
                "service", "app", "domain", "verdict", "checked_at", "next_check", "last_error", "retry_count",
                "document_digest", "approved_at", "mac",
            ], order: "service, app, domain"),
        Table(
            name: "app_tokens",
            columns: ["id", "token_hash", "app", "permissions", "consent", "created_at", "expires_at", "mac"],
            order: "id"),
        Table(
            name: "browser_associations",
            columns: ["id", "key_hash", "fingerprint", "allow_http", "consent", "created_at", "mac"], order: "id"),
        Table(name: "browser_associations_ended", columns: ["id"], order: "id"),
        Table(name: "grant_members", columns: ["mac"], order: "mac"),
        Table(
            name: "credentials", columns: ["id", "server_index", "account_index", "sealed", "version"],
            order: "server_index, account_index"),
        Table(
            name: "credential_domains", columns: ["domain_index", "server_index"], order: "domain_index, server_index"),
        Table(name: "passkeys", columns: ["id", "rp_index", "credential_index", "sealed", "version"], order: "id"),
        Table(name: "never_save", columns: ["host_index", "sealed_host", "created_at"], order: "host_index"),
        Table(
            name: "audit_log", columns: ["seq", "at", "actor", "operation", "outcome", "error_code", "sealed", "tag"],
            order: "seq"),
        Table(name: "audit_chains", columns: ["chain", "head", "anchor"], order: "chain"),
        Table(
            name: "audit_chain_log",
            columns: ["chain", "seq", "at", "actor", "operation", "outcome", "error_code", "sealed", "tag"],
            order: "chain, seq"),
    ]
}

extension VaultTables.Table {
    /// Every row, in a stable order.
    var selectAll: String { "SELECT \(columns.joined(separator: ", ")) FROM \(name) ORDER BY \(order)" }

    /// One row, every column given.
    var insert: String {
        "INSERT INTO \(name) (\(columns.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))"
    }

    /// How many rows.
    var count: String { "SELECT COUNT(*) FROM \(name)" }
}
