import Foundation

/// The keyed index of every credential server's parent domains (`credential_domains`), which lets
/// a wildcard entry `*.example.com` find every server under `example.com` with one lookup instead
/// of opening every record (`example.com` itself it finds by its own server index).
///
/// Each server (with its port) with at least one credential has one row per parent domain of at
/// least two labels (`a.b.example.com` gives `b.example.com` and `example.com`; `example.com` and
/// IP addresses give none, so most servers cost no row at all).
/// A row holds the blind index of the domain and the server's `server_index`; rows are added
/// when a server gets its first credential and removed when it loses its last.
enum ParentDomains {
    /// The parent domains of a server with two labels or more, nearest first.
    static func domains(of server: String) -> [String] {
        var result: [String] = []
        guard !isAddress(server) else { return result }
        var rest = Substring(server)
        while let dot = rest.firstIndex(of: ".") {
            rest = rest[rest.index(after: dot)...]
            guard rest.contains(".") else { break }
            result.append(String(rest))
        }
        return result
    }

    /// Whether a host is an IP address (digits and dots, or an IPv6 address), which has no
    /// parent domains.
    private static func isAddress(_ host: String) -> Bool {
        host.utf8.contains(UInt8(ascii: ":"))
            || host.utf8.allSatisfy { $0 == UInt8(ascii: ".") || (0x30...0x39).contains($0) }
    }

    /// Adds the rows of a server (a credential was stored for it). Cheap when they exist.
    static func insert(server: String, serverIndex: [UInt8], db: any StoreWriter, keys: VaultKeys) throws {
        for domain in domains(of: server) {
            try db.execute(
                "INSERT INTO credential_domains (domain_index, server_index) VALUES (?, ?) ON CONFLICT DO NOTHING",
                [.blob(keys.parentDomainIndex(domain)), .blob(serverIndex)])
        }
    }

    /// Removes a server's rows once it has no credential left.
    static func removeIfUnused(server: String, serverIndex: [UInt8], db: any StoreWriter) throws {
        guard !domains(of: server).isEmpty else { return }
        let index = StoreValue.blob(serverIndex)
        guard try db.row("SELECT 1 FROM credentials WHERE server_index = ? LIMIT 1", [index]) == nil else { return }
        try db.execute("DELETE FROM credential_domains WHERE server_index = ?", [index])
    }

    /// The server indexes of the subdomains of `domain` (a wildcard's host).
    static func serverIndexes(under domain: String, db: any StoreReader, keys: VaultKeys) throws -> [[UInt8]] {
        try db.rows(
            "SELECT server_index FROM credential_domains WHERE domain_index = ?",
            [.blob(keys.parentDomainIndex(domain))]
        ).compactMap { $0.blob(0) }
    }

    /// Whether the stored rows are exactly those the credentials call for: compares the count and
    /// a keyed sum (state key, mod 2^64) of the rows with those computed from the credentials.
    /// Opens every record. A row removed behind swcred's back would hide a server from requests
    /// without a domain; one added would only lead to records the entitlement check rejects.
    static func matches(_ db: any StoreReader, keys: VaultKeys) throws -> Bool {
        func element(_ domainIndex: [UInt8], _ serverIndex: [UInt8]) -> UInt64 {
            keys.stateMAC(table: "live:credential_domains", fields: [domainIndex, serverIndex]).prefix(8)
                .reduce(0) { $0 << 8 | UInt64($1) }
        }
        var expected = Set<[UInt8]>()
        var expectedSum: UInt64 = 0
        var expectedCount = 0
        try db.forEachRow(CredentialStore.columns, []) { row in
            guard let credential = CredentialStore.openIfAuthentic(row, keys: keys), let serverIndex = row.blob(1),
                expected.insert(serverIndex).inserted
            else { return }
            for domain in domains(of: credential.server) {
                expectedSum &+= element(keys.parentDomainIndex(domain), serverIndex)
                expectedCount += 1
            }
        }
        var storedSum: UInt64 = 0
        var storedCount = 0
        try db.forEachRow("SELECT domain_index, server_index FROM credential_domains", []) { row in
            storedSum &+= element(row.blob(0) ?? [], row.blob(1) ?? [])
            storedCount += 1
        }
        return storedCount == expectedCount && storedSum == expectedSum
    }

    /// Rebuilds every row from the credentials (after a key rotation or a format upgrade).
    /// Opens every record; throws `.integrityFailure` naming none of them when one is damaged.
    static func rebuild(_ db: any StoreWriter, keys: VaultKeys, path: String) throws {
        try db.execute("DELETE FROM credential_domains", [])
        let rows = try db.rows(CredentialStore.columns)
        for row in rows {
            guard let credential = CredentialStore.openIfAuthentic(row, keys: keys), let serverIndex = row.blob(1)
            else {
                throw SharedWebCredentialsError(
                    .integrityFailure,
                    "A credential in \(path) failed authentication, so its parent domains could not be indexed (nothing changed). Find it with `swcred status --verify`."
                )
            }
            try insert(server: credential.server, serverIndex: serverIndex, db: db, keys: keys)
        }
    }
}
