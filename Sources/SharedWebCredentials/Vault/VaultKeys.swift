import CSodium

/// The unlocked key hierarchy of a vault: the vault key, the subkeys derived from it, and the key
/// that wraps it (derived from the passphrase, or read from the key file).
final class VaultKeys: Sendable {
    /// The record format version bound into every sealed blob.
    static let formatVersion: UInt32 = 1

    /// The random id of this vault key, stored in `vault_meta.key_id`.
    let keyID: [UInt8]
    /// The random 32-byte vault key.
    let vaultKey: SecureBytes
    /// The key that wraps the vault key in `vault_meta.wrapped_key`.
    let wrappingKey: SecureBytes
    /// Encrypts records.
    let recordKey: SecureBytes
    /// Keys the blind indexes.
    let indexKey: SecureBytes
    /// Keys the MACs that authenticate the rows of the gate's state.
    let stateKey: SecureBytes
    /// Keys the hashes of app tokens.
    let tokenKey: SecureBytes

    init(keyID: [UInt8], vaultKey: SecureBytes, wrappingKey: SecureBytes) {
        self.keyID = keyID
        self.vaultKey = vaultKey
        self.wrappingKey = wrappingKey
        recordKey = KeyDerivation.subkey(.recordEncryption, from: vaultKey)
        indexKey = KeyDerivation.subkey(.blindIndex, from: vaultKey)
        stateKey = KeyDerivation.subkey(.gateState, from: vaultKey)
        tokenKey = KeyDerivation.subkey(.appTokenHash, from: vaultKey)
    }

    /// A fresh random vault key under an existing wrapping key.
    static func generate(wrappingKey: SecureBytes) -> VaultKeys {
        VaultKeys(
            keyID: RandomBytes.array(count: 16),
            vaultKey: SecureBytes.random(count: KeyDerivation.keyLength),
            wrappingKey: wrappingKey)
    }

    /// The same vault key under another wrapping key (a passphrase change).
    func rewrapped(under newWrappingKey: SecureBytes) -> VaultKeys {
        VaultKeys(keyID: keyID, vaultKey: vaultKey, wrappingKey: newWrappingKey)
    }

    // MARK: Blind indexes

    /// The blind index of a normalised server and port.
    func serverIndex(_ key: CredentialKey) -> [UInt8] {
        KeyedHash.digest(key: indexKey, fields: [Array("server".utf8), Array(key.server.utf8), portField(key.port)])
    }

    /// The blind index of a normalised server, port and account.
    func accountIndex(_ key: CredentialKey, account: String) -> [UInt8] {
        KeyedHash.digest(
            key: indexKey,
            fields: [Array("account".utf8), Array(key.server.utf8), portField(key.port), Array(account.utf8)])
    }

    /// The blind index of a "never save" host.
    func hostIndex(_ host: String) -> [UInt8] {
        KeyedHash.digest(key: indexKey, fields: [Array("never-save".utf8), Array(host.utf8)])
    }

    private func portField(_ port: Int?) -> [UInt8] {
        withUnsafeBytes(of: UInt32(port ?? 0).littleEndian) { Array($0) }
    }

    // MARK: Row MACs and token hashes

    /// The MAC of one row of the gate's state: keyed BLAKE2b over the table name and the row's
    /// length-prefixed fields. Compare it with ``ConstantTime``.
    func stateMAC(table: String, fields: [[UInt8]]) -> [UInt8] {
        KeyedHash.digest(key: stateKey, fields: [Array(table.utf8)] + fields)
    }

    /// The stored hash of an app token's random bytes.
    func tokenHash(_ secret: SecureBytes) -> [UInt8] {
        var field = secret.withUnsafeBytes { Array($0) }
        let digest = KeyedHash.digest(key: tokenKey, fields: [Array("app-token".utf8), field])
        field.withUnsafeMutableBytes { if let base = $0.baseAddress { sodium_memzero(base, $0.count) } }
        return digest
    }

    // MARK: Associated data

    /// Binds a sealed credential to its row id, both indexes and the format version.
    static func credentialAssociatedData(
        id: some Collection<UInt8>, serverIndex: some Collection<UInt8>, accountIndex: some Collection<UInt8>
    ) -> [UInt8] {
        var data = associatedDataHeader(label: "swcred/credential", capacity: 3 * 4 + 16 + 64)
        appendPart(id, to: &data)
        appendPart(serverIndex, to: &data)
        appendPart(accountIndex, to: &data)
        return data
    }

    /// Binds a sealed "never save" host to its index and the format version.
    static func neverSaveAssociatedData(hostIndex: [UInt8]) -> [UInt8] {
        associatedData(label: "swcred/never-save", parts: [hostIndex])
    }

    /// Binds the wrapped vault key to its key id and how it is protected.
    static func wrappedKeyAssociatedData(keyID: [UInt8], protection: VaultMetadata.Protection) -> [UInt8] {
        var parts = [keyID]
        switch protection {
        case .rawKey:
            parts.append(Array("raw-key".utf8))
        case .passphrase(let salt, let parameters):
            parts.append(Array("argon2id13".utf8))
            parts.append(salt)
            parts.append(withUnsafeBytes(of: parameters.opslimit.littleEndian) { Array($0) })
            parts.append(withUnsafeBytes(of: parameters.memlimit.littleEndian) { Array($0) })
        }
        return associatedData(label: "swcred/vault-key", parts: parts)
    }

    private static func associatedData(label: String, parts: [[UInt8]]) -> [UInt8] {
        var data = associatedDataHeader(label: label, capacity: parts.reduce(0) { $0 + 4 + $1.count })
        for part in parts { appendPart(part, to: &data) }
        return data
    }

    /// The label, a zero byte and the format version that start every associated data.
    private static func associatedDataHeader(label: String, capacity: Int) -> [UInt8] {
        var data: [UInt8] = []
        data.reserveCapacity(label.utf8.count + 5 + capacity)
        data.append(contentsOf: label.utf8)
        data.append(0)
        withUnsafeBytes(of: formatVersion.littleEndian) { data.append(contentsOf: $0) }
        return data
    }

    /// Appends one length-prefixed part.
    private static func appendPart(_ part: some Collection<UInt8>, to data: inout [UInt8]) {
        withUnsafeBytes(of: UInt32(part.count).littleEndian) { data.append(contentsOf: $0) }
        data.append(contentsOf: part)
    }
}
