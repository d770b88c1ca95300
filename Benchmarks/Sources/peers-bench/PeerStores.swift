import BenchmarkSupport
import Foundation
import SharedWebCredentials

/// The same small password store in each product, for timing one lookup as a whole process:
/// ``entries`` credentials, one of them ``account`` at ``server`` with ``password``, in
/// - a swcred vault with the default KDF (Argon2id, opslimit 3, 64 MiB), ``app`` registered and
///   approved for ``server`` (a fresh verdict, so `--offline` requests pass the gate);
/// - the same vault content unlocked with a key file (no KDF: the CLI's own cost);
/// - a KDBX 4 database with the same Argon2id parameters (one lane, as libsodium);
/// - a `pass` store encrypted to a passphrase-less GnuPG key in a private GNUPGHOME.
///
/// Everything lives in one temporary directory, removed (and its gpg-agent stopped) by ``remove()``.
struct PeerStores {
    static let server = "shop.example"
    static let account = "alice@example.com"
    /// Known, so that each peer's output can be checked; these stores hold nothing real.
    static let password = "Xq7-peers-bench-password"
    static let passphrase = "peers-bench passphrase, not secret"
    static let app = "ABCDE12345.com.example.app"

    let entries: Int
    let directory: URL
    let passphraseVault: String
    let keyFileVault: String
    let keyFile: String
    let kdbx: String
    let gnupgHome: String
    let passwordStore: String
    /// What the KDBX file's header says, read back by make-kdbx.py.
    private(set) var kdbxParameters = ""

    /// Makes every store with `entries` credentials; `makeKDBX` is Benchmarks/make-kdbx.py.
    static func make(entries: Int, makeKDBX: String) throws -> PeerStores {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("peers-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
        var stores = PeerStores(
            entries: entries, directory: directory, passphraseVault: path("vault.sqlite"),
            keyFileVault: path("vault-keyfile.sqlite"), keyFile: path("vault.key"), kdbx: path("peer.kdbx"),
            gnupgHome: path("gnupg"), passwordStore: path("password-store"))
        do {
            try stores.fill(makeKDBX: makeKDBX)
            return stores
        } catch {
            stores.remove()
            throw error
        }
    }

    /// Makes each store.
    private mutating func fill(makeKDBX: String) throws {
        try Self.seed(
            try Vault.create(
                at: passphraseVault, protection: .passphrase(SecureBytes(utf8: Self.passphrase), .default)),
            entries: entries)
        try Self.seed(try Vault.create(at: keyFileVault, protection: .newKeyFile(path: keyFile)), entries: entries)
        kdbxParameters = try run(
            TimedCommand(
                "make-kdbx.py", executable: makeKDBX,
                arguments: [
                    kdbx, "\(entries)", "\(KDFParameters.default.opslimit)", "\(KDFParameters.default.memlimit)",
                ],
                input: Data("\(Self.passphrase)\n\(Self.password)\n".utf8))
        ).trimmingCharacters(in: .whitespacesAndNewlines)
        try makePasswordStore()
    }

    /// Registers ``app`` with a fresh approval for ``server`` and adds `entries` credentials.
    private static func seed(_ vault: Vault, entries: Int) throws {
        let app = try ApplicationIdentifier(Self.app)
        let entitlements = try Entitlements(strings: ["webcredentials:\(server)"])
        let now = Date()
        try vault.apps.register(app, entitlements: entitlements, at: now)
        try vault.associations.save(
            AssociationRecord(
                service: .webcredentials, app: app, domain: server, verdict: .approved, checkedAt: now,
                nextCheck: now.addingTimeInterval(5 * 86_400), lastError: nil, retryCount: 0, documentDigest: nil,
                approvedAt: now))
        try vault.credentials.batch { batch in
            try batch.upsert(server: server, account: account, password: SecureBytes(utf8: password))
            for index in 1..<entries {
                try batch.upsert(
                    server: "host\(index).example", account: "user\(index)@example.com",
                    password: SecureBytes(utf8: "pw-\(index)-Xq7#vL9p"))
            }
        }
    }

    /// The environment `pass` and `gpg` run with: this store and this GNUPGHOME only.
    var passEnvironment: [String: String] { ["GNUPGHOME": gnupgHome, "PASSWORD_STORE_DIR": passwordStore] }

    /// A passphrase-less ed25519/cv25519 key, `pass init` to it, and `entries` entries
    /// (`shop.example/alice@example.com` first), each added with `pass insert`.
    private func makePasswordStore() throws {
        try FileManager.default.createDirectory(
            atPath: gnupgHome, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let gpg = try executablePath(named: "gpg")
        let pass = try executablePath(named: "pass")
        try run(
            TimedCommand(
                "gpg --quick-generate-key", executable: gpg,
                arguments: [
                    "--batch", "--pinentry-mode", "loopback", "--passphrase", "", "--quick-generate-key",
                    "peers bench <bench@example.invalid>", "future-default", "default", "never",
                ],
                environment: passEnvironment))
        let keys = try run(
            TimedCommand(
                "gpg --list-keys", executable: gpg, arguments: ["--with-colons", "--list-keys"],
                environment: passEnvironment))
        guard
            let fingerprint = keys.split(separator: "\n").first(where: { $0.hasPrefix("fpr:") })?.split(
                separator: ":", omittingEmptySubsequences: false)[9]
        else { throw CommandFailure(description: "gpg listed no key fingerprint") }
        try run(
            TimedCommand(
                "pass init", executable: pass, arguments: ["init", String(fingerprint)], environment: passEnvironment))
        for index in 0..<entries {
            let (name, secret) =
                index == 0
                ? ("\(Self.server)/\(Self.account)", Self.password)
                : ("host\(index).example/user\(index)@example.com", "pw-\(index)-Xq7#vL9p")
            try run(
                TimedCommand(
                    "pass insert", executable: pass, arguments: ["insert", "--echo", name],
                    environment: passEnvironment, input: Data("\(secret)\n".utf8)))
        }
    }

    /// The peers' package versions, the store size and the KDF parameters each store really has
    /// (the KDBX file's as read back from its header and as `keepassxc-cli db-info` reports them).
    func describe() throws -> String {
        let versions = try run(
            TimedCommand(
                "dpkg-query", executable: try executablePath(named: "dpkg-query"),
                arguments: [
                    "-W", "-f", "${Package} ${Version}; ", "pwgen", "keepassxc", "pass", "gnupg", "libsodium23",
                    "libargon2-1", "libsqlite3-0",
                ]))
        let info = try run(
            TimedCommand(
                "keepassxc-cli db-info", executable: try executablePath(named: "keepassxc-cli"),
                arguments: ["db-info", "--quiet", kdbx], input: Data("\(Self.passphrase)\n".utf8)))
        let kdf = info.split(separator: "\n").first { $0.hasPrefix("KDF:") } ?? "no KDF line"
        return """
            packages: \(versions)
            vaults, KDBX and pass store: \(entries) credentials each; swcred KDF: \(KDFParameters.default)
            KDBX header: \(kdbxParameters); keepassxc-cli db-info: \(kdf)
            """
    }

    /// Stops the gpg-agent that `pass` started for this GNUPGHOME and removes every store.
    func remove() {
        if let gpgconf = try? executablePath(named: "gpgconf") {
            _ = try? run(
                TimedCommand(
                    "gpgconf --kill", executable: gpgconf, arguments: ["--kill", "gpg-agent"],
                    environment: passEnvironment))
        }
        try? FileManager.default.removeItem(at: directory)
    }
}
