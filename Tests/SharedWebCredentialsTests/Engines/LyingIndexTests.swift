import Foundation
import TestSupport
import Testing

@testable import SharedWebCredentials

/// The database is not trusted to answer a query truthfully: whoever can write the server's
/// files can make an index lead a lookup to another row, which is just as authentic as the one
/// asked for. Every lookup checks that the row's own authenticated columns are the ones it asked
/// for. Here the index entries of two apps are swapped on disk (``TestPostgres/PrivateCluster``),
/// and the database made to use its indexes (`enable_seqscan = off`, a setting its owner
/// controls): the app whose site does not list it asks for the password of a site that lists the
/// other app.
@Suite("PostgreSQL: an index that leads a lookup to another app's authentic row")
struct LyingIndexTests {
    static let listed = try! ApplicationIdentifier("ZZZZZ99999.com.example.other")
    static let unlisted = try! ApplicationIdentifier("ABCDE12345.com.example.app")
    static let shop = try! DomainTarget("shop.example")

    /// A vault on a cluster of the test's own: the listed app approved for shop.example, the
    /// unlisted one denied, a password saved for shop.example and one for other.example; the
    /// database told to use its indexes.
    private struct Setup {
        let cluster: TestPostgres.PrivateCluster
        let database: String
        let store: VaultStore
        let vault: Vault

        init() throws {
            cluster = try TestPostgres.PrivateCluster()
            database = try TestPostgres.freshDatabase(on: cluster.url)
            store = VaultStore.postgresql(try PostgresStoreURL(parsing: database), password: nil)
            vault = try Vault.create(in: store, protection: .passphrase(passphrase, VaultTestSupport.fastKDF))
            try vault.credentials.upsert(server: "shop.example", account: "ann", password: SecureBytes(utf8: "Pw-ann"))
            try vault.credentials.upsert(
                server: "other.example", account: "bob", password: SecureBytes(utf8: "Pw-bob"))
            for app in [listed, unlisted] {
                try vault.apps.register(
                    app, entitlements: Entitlements(strings: ["webcredentials:shop.example"]), at: Date())
            }
            try VaultTestSupport.store(
                listed, for: ["webcredentials:shop.example"], verdict: .approved, checkedAt: Date(),
                approvedAt: Date(), in: vault)
            try VaultTestSupport.store(
                unlisted, for: ["webcredentials:shop.example"], verdict: .denied, checkedAt: Date(), approvedAt: nil,
                in: vault)
            let name = try PostgresStoreURL(parsing: database).database
            try TestPostgres.psql(
                database,
                "ALTER DATABASE \(name) SET enable_seqscan = off; ALTER DATABASE \(name) SET enable_bitmapscan = off")
        }

        /// What `app` gets when it requests shop.example's passwords, through a new handle (whose
        /// connections take the database's settings): the accounts released, or the error code.
        /// A new handle, whose connections take the database's settings.
        func open() throws -> Vault { try Vault.open(store: store, secret: .passphrase(passphrase)) }

        func request(as app: ApplicationIdentifier) async -> Outcome {
            do {
                let vault = try open()
                let gate = SharedWebCredentials(app: app, vault: vault, verifier: nil)
                return .released(try await gate.request(domain: shop).map(\.account))
            } catch let error as SharedWebCredentialsError {
                return .refused(error.code)
            } catch {
                return .refused(.internalError)
            }
        }
    }

    /// What a request got.
    enum Outcome: Equatable {
        case released([String])
        case refused(SharedWebCredentialsError.Code)
    }

    static let passphrase = SecureBytes(utf8: VaultTestSupport.passphrase)

    @Test(
        "a verdict, a registration or a token found through a lying index is not another app's: no password is released, no list shows the other app's"
    )
    func swappedApps() async throws {
        let setup = try Setup()
        defer { setup.cluster.stop() }
        let (cluster, database) = (setup.cluster, setup.database)
        func request(as app: ApplicationIdentifier) async -> Outcome { await setup.request(as: app) }
        #expect(await request(as: Self.listed) == .released(["ann"]))
        #expect(await request(as: Self.unlisted) == .refused(.notApproved))

        // The verdicts' index: the unlisted app's lookup finds the listed app's approval, which
        // counts as missing (and offline, it cannot be verified again).
        let service = "webcredentials"
        let verdicts = "associations_pkey"
        try cluster.swapIndexEntries(
            in: database, index: verdicts, [service, Self.unlisted.description, "shop.example"],
            [service, Self.listed.description, "shop.example"])
        #expect(await request(as: Self.unlisted) == .refused(.networkFailure))
        #expect(await request(as: Self.listed) == .refused(.networkFailure))
        // Nor does the app's list of verdicts (the re-verifier's, `/v1/associations`) show the other's.
        let listedVerdicts = try setup.open().associations.all(app: Self.unlisted).map(\.app)
        #expect(listedVerdicts.allSatisfy { $0 == Self.unlisted }, "\(listedVerdicts)")
        try cluster.swapIndexEntries(
            in: database, index: verdicts, [service, Self.unlisted.description, "shop.example"],
            [service, Self.listed.description, "shop.example"])
        #expect(await request(as: Self.unlisted) == .refused(.notApproved))

        // The tokens' index by app: the owner's list of one app's tokens shows none of the other's.
        for app in [Self.listed, Self.unlisted] {
            _ = try setup.vault.appTokens.create(
                app: app, permissions: [.request], consent: .none, expiresAt: nil, now: Date())
        }
        try cluster.swapIndexEntries(
            in: database, index: "app_tokens_app", [Self.unlisted.description], [Self.listed.description])
        let listedTokens = try setup.open().appTokens.list(app: Self.unlisted).map(\.app)
        #expect(listedTokens.allSatisfy { $0 == Self.unlisted }, "\(listedTokens)")

        // The registrations' index: the unlisted app's lookup finds the listed app's registration.
        try cluster.swapIndexEntries(
            in: database, index: "apps_pkey", [Self.unlisted.description], [Self.listed.description])
        #expect(await request(as: Self.unlisted) == .refused(.integrityFailure))
        #expect(await request(as: Self.listed) == .refused(.integrityFailure))
    }

    @Test("a credential found through a lying index is not another server's: it is neither released nor changed")
    func swappedCredentials() async throws {
        let setup = try Setup()
        defer { setup.cluster.stop() }
        #expect(await setup.request(as: Self.listed) == .released(["ann"]))
        let keys = setup.vault.keys
        let shop = try CredentialKey(server: "shop.example", port: nil)
        let other = try CredentialKey(server: "other.example", port: nil)
        try setup.cluster.swapIndexEntries(
            in: setup.database, index: "credentials_pkey",
            [keys.serverIndex(shop), keys.accountIndex(shop, account: "ann")],
            [keys.serverIndex(other), keys.accountIndex(other, account: "bob")])
        #expect(await setup.request(as: Self.listed) == .refused(.integrityFailure))

        // The account index, which a change reads its credential through: deleting ann's
        // password at shop.example finds bob's at other.example, and changes nothing.
        try setup.cluster.swapIndexEntries(
            in: setup.database, index: "credentials_pkey",
            [keys.serverIndex(shop), keys.accountIndex(shop, account: "ann")],
            [keys.serverIndex(other), keys.accountIndex(other, account: "bob")])
        try setup.cluster.swapIndexEntries(
            in: setup.database, index: "credentials_account_index_key", [keys.accountIndex(shop, account: "ann")],
            [keys.accountIndex(other, account: "bob")])
        let vault = try Vault.open(store: setup.store, secret: .passphrase(Self.passphrase))
        let gate = SharedWebCredentials(app: Self.listed, vault: vault, verifier: nil)
        let deleted = await VaultTestSupport.errorCode {
            _ = try await gate.add(domain: try DomainTarget("shop.example"), account: "ann", password: nil) { _ in true
            }
        }
        #expect(deleted == .integrityFailure)
        #expect(try setup.vault.credentials.all().map(\.account).sorted() == ["ann", "bob"])
    }

    @Test("a passkey found by its credential ID through a lying index is not another passkey")
    func swappedPasskeys() throws {
        let setup = try Setup()
        defer { setup.cluster.stop() }
        let passkeys = try [0x41, 0x42].map { byte in
            Passkey(
                credentialID: Array(repeating: UInt8(byte), count: 16), rpID: try RelyingPartyID("shop.example"),
                userHandle: [UInt8(byte)], userName: "user-\(byte)", userDisplayName: "User \(byte)",
                privateKey: PasskeyPrivateKey.generate(.es256), created: Date())
        }
        try setup.vault.credentials.batch { batch in for passkey in passkeys { try batch.savePasskey(passkey) } }
        let first = Base64URL.encode(passkeys[0].credentialID)
        #expect(try setup.vault.passkeys.find(credentialID: first)?.userName == "user-65")

        let keys = setup.vault.keys
        try setup.cluster.swapIndexEntries(
            in: setup.database, index: "passkeys_credential_index_key",
            [keys.passkeyCredentialIndex(passkeys[0].credentialID)],
            [keys.passkeyCredentialIndex(passkeys[1].credentialID)])
        let vault = try Vault.open(store: setup.store, secret: .passphrase(Self.passphrase))
        #expect(VaultTestSupport.errorCode { _ = try vault.passkeys.find(credentialID: first) } == .integrityFailure)
    }
}
