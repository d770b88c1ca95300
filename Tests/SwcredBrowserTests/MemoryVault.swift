import Foundation

@testable import SwcredBrowser

/// The vault side for the engine's tests: associations, entries and the owner's answer kept in
/// memory, and a record of every call, so that a test can tell that a refused request reached
/// nothing. The real implementation belongs to the service; this only holds state.
actor MemoryVault: BrowserVaultBridge {
    struct Entry {
        var uuid: String
        var host: String
        var login: String
        var password: String
        var otpauth: String?
    }

    /// What the owner answers to an association request: a name, or nil to decline.
    var ownerAnswer: String? = "Firefox on this machine"
    var associations: [String: String] = [:]
    var entries: [Entry] = []
    var locked = false
    var hash = "5f2d0c6e1a"
    var now: UInt64 = 1_111_111_109
    private(set) var calls: [String] = []

    func setOwnerAnswer(_ answer: String?) { ownerAnswer = answer }

    /// A failure of the store under the vault (a database that fails): while set, every lookup of
    /// logins throws it, as no ``BrowserVaultError`` says.
    struct StoreFailure: Error {}
    private var failsStore = false
    func failStore() { failsStore = true }

    /// While set, an association request waits for ``releaseApproval()``, as one waits for the
    /// owner.
    var holdsApprovals = false
    private var pendingApproval: CheckedContinuation<Void, Never>?
    func holdApprovals() { holdsApprovals = true }
    var isWaitingForApproval: Bool { pendingApproval != nil }
    func releaseApproval() {
        pendingApproval?.resume()
        pendingApproval = nil
    }
    func setHash(_ value: String) { hash = value }
    func add(_ entry: Entry) { entries.append(entry) }
    func revoke(_ id: String) { associations.removeValue(forKey: id) }
    /// Stores an association the owner approved elsewhere (another browser under a name).
    func store(_ id: String, identificationKey: String) { associations[id] = identificationKey }

    func databaseHash() async throws -> String {
        calls.append("databaseHash")
        try checkUnlocked()
        return hash
    }

    /// The peer process the last association request described.
    private(set) var lastPeer: BrowserPeerProcess?

    func associate(publicKey: String, identificationKey: String, peer: BrowserPeerProcess?) async throws -> String {
        calls.append("associate")
        lastPeer = peer
        try checkUnlocked()
        if holdsApprovals {
            await withCheckedContinuation { pendingApproval = $0 }
        }
        guard let name = ownerAnswer else { throw BrowserVaultError.denied }
        associations[name] = identificationKey
        return name
    }

    func isAssociated(id: String, identificationKey: String) async throws -> Bool {
        calls.append("isAssociated")
        return associations[id] == identificationKey
    }

    func logins(
        association: BrowserSessionAssociation, url: String, submitURL: String?, httpAuth: Bool
    ) async throws -> [BrowserLogin] {
        calls.append("logins")
        try check(association)
        if failsStore { throw StoreFailure() }
        let host = URLComponents(string: url)?.host
        return entries.filter { $0.host == host }.map {
            BrowserLogin(
                login: $0.login, name: $0.host, password: $0.password, uuid: $0.uuid, hasTOTP: $0.otpauth != nil)
        }
    }

    func setLogin(association: BrowserSessionAssociation, _ change: SetLoginRequest) async throws {
        calls.append("setLogin")
        try check(association)
        if let uuid = change.uuid {
            guard let index = entries.firstIndex(where: { $0.uuid == uuid }) else {
                throw BrowserVaultError.unknownEntry
            }
            entries[index].login = change.login
            entries[index].password = change.password
        } else {
            guard let host = URLComponents(string: change.url)?.host else { throw BrowserVaultError.denied }
            let uuid = UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
            entries.append(Entry(uuid: uuid, host: host, login: change.login, password: change.password))
        }
    }

    func generatePassword(association: BrowserSessionAssociation, url: String?) async throws -> String {
        calls.append("generatePassword")
        try check(association)
        return "xkcd-" + UUID().uuidString.prefix(8)
    }

    func totp(association: BrowserSessionAssociation, uuid: String) async throws -> String {
        calls.append("totp")
        try check(association)
        guard let entry = entries.first(where: { $0.uuid == uuid }), let uri = entry.otpauth else {
            throw BrowserVaultError.unknownEntry
        }
        return try TOTP(uri: uri).code(atUnixTime: now)
    }

    func lock(association: BrowserSessionAssociation) async throws {
        calls.append("lock")
        try check(association)
        locked = true
    }

    private func checkUnlocked() throws {
        if locked { throw BrowserVaultError.locked }
    }

    private func check(_ association: BrowserSessionAssociation) throws {
        try checkUnlocked()
        guard associations[association.id] == association.identificationKey else {
            throw BrowserVaultError.notAssociated
        }
    }
}
