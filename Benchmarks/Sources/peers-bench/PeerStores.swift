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
    let kdbxParameters: String

    /// Makes every store with `entries` credentials; `makeKDBX` is Benchmarks/make-kdbx.py.
    static func make(entries: Int, makeKDBX: String) throws -> PeerStores {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("peers-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
        let passphraseVault = path("vault.sqlite")
        try fill(
            try Vault.create(
                at: passphraseVault, protection: .passphrase(SecureBytes(utf8: passphrase), .default)),
            entries: entries)
        try fill(
            try Vault.create(at: path("vault-keyfile.sqlite"), protection: .newKeyFile(path: path("vault.key"))),
            entries: entries)
        let kdbxParameters = try run(
            TimedCommand(
                "make-kdbx.py", executable: makeKDBX,
                arguments: [
                    path("peer.kdbx"), "\(entries)", "\(KDFParameters.default.opslimit)",
                    "\(KDFParameters.default.memlimit)",
                ],
                input: Data("\(passphrase)\n\(password)\n".utf8)))
        let stores = PeerStores(
            entries: entries, directory: directory, passphraseVault: passphraseVault,
            keyFileVault: path("vault-keyfile.sqlite"), keyFile: path("vault.key"), kdbx: path("peer.kdbx"),
            gnupgHome: path("gnupg"), passwordStore: path("password-store"),
            kdbxParameters: kdbxParameters.trimmingCharacters(in: .whitespacesAndNewlines))
        try stores.makePasswordStore()
        return stores
    }

    /// Registers ``app`` with a fresh approval for ``server`` and adds `entries` credentials.
    private static func fill(_ vault: Vault, entries: Int) throws {
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
