import Foundation

@testable import SharedWebCredentials
@testable import TestSupport

/// What the instance-chain tests start from: a vault on an engine, a second handle on it that
/// appends to an audit chain of its own (as `swcred serve` does), and the release they append.
struct InstanceChainVaults {
    /// A release of alice's credential at shop.example to an app.
    static let release = AuditEvent(
        actor: AuditActor(name: "ABCDE12345.com.example.app"), operation: .request, domain: "shop.example",
        released: [AuditCredential(domain: "shop.example", account: "alice")])

    let store: VaultStore
    /// The owner's handle: one-shot commands, writing the vault's chain.
    let owner: Vault
    /// The instance's handle, appending to its own chain.
    let instance: Vault

    init(_ engine: StorageEngine, in directory: TemporaryDirectory) throws {
        store = try engine.freshStore(in: directory)
        owner = try Vault.create(
            in: store, protection: .passphrase(SecureBytes(utf8: VaultTestSupport.passphrase), VaultTestSupport.fastKDF)
        )
        var configuration = VaultConfiguration()
        configuration.appendsToInstanceChain = true
        instance = try Vault.open(
            store: store, secret: .passphrase(SecureBytes(utf8: VaultTestSupport.passphrase)),
            configuration: configuration)
    }
}
