import CSodium

/// The unlocked key hierarchy of a vault: the vault key, the subkeys derived from it, and the key
/// that wraps it (derived from the passphrase, or read from the key file).
final class VaultKeys: Sendable {
    /// The record format version bound into every sealed blob and into the wrapped key.
    /// Format 2 added record versions, MACs on `apps` and `associations` and the record commitment;
    /// format 3 the audit log's sealed head and anchor, the parent-domain index, and credential
    /// payloads of version 2 only.
    static let formatVersion: UInt32 = 3
    /// The format of the first release, upgraded in place at its first unlock (``FormatUpgrade``).
    static let legacyFormatVersion: UInt32 = 1

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
    /// Keys the MACs of rows stored in plaintext (`apps`, `associations`) and the record commitment:
    /// see ``stateMAC(table:fields:)``.
    let stateKey: SecureBytes
    /// Keys the hashes of app tokens and of browsers' identification keys.
    let tokenKey: SecureBytes

    init(keyID: [UInt8], vaultKey: SecureBytes, wrappingKey: SecureBytes) {
        self.keyID = keyID
        self.vaultKey = vaultKey
        self.wrappingKey = wrappingKey
        recordKey = KeyDerivation.subkey(.recordEncryption, from: vaultKey)
        indexKey = KeyDerivation.subkey(.blindIndex, from: vaultKey)
        stateKey = KeyDerivation.subkey(.stateAuthentication, from: vaultKey)
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

    /// The blind index of a normalised server, port and scheme.
    func serverIndex(_ key: CredentialKey) -> [UInt8] {
        KeyedHash.digest(
            key: indexKey,
            fields: [Array("server".utf8), Array(key.server.utf8), portField(key.port)] + schemeField(key))
    }

    /// The blind index of a normalised server, port, scheme and account.
    func accountIndex(_ key: CredentialKey, account: String) -> [UInt8] {
        KeyedHash.digest(
            key: indexKey,
            fields: [Array("account".utf8), Array(key.server.utf8), portField(key.port), Array(account.utf8)]
                + schemeField(key))
    }

    /// The scheme's part of a credential's indexes: none for https, so that the indexes of every
    /// credential saved before schemes were kept stay as they were, and a last field `http` for
    /// http (the fields are length-prefixed, so no https server, port or account gives it).
    private func schemeField(_ key: CredentialKey) -> [[UInt8]] {
        key.scheme == .https ? [] : [Array(key.scheme.rawValue.utf8)]
    }

    /// The blind index of a domain that is a credential's server or one of its parent domains
    /// (``ParentDomains``): what a wildcard entry `*.domain` looks up.
    func parentDomainIndex(_ domain: String) -> [UInt8] {
        KeyedHash.digest(key: indexKey, fields: [Array("parent-domain".utf8), Array(domain.utf8)])
    }

    /// The blind index of a "never save" host.
    func hostIndex(_ host: String) -> [UInt8] {
        KeyedHash.digest(key: indexKey, fields: [Array("never-save".utf8), Array(host.utf8)])
    }

    /// The blind index of a passkey's RP ID (normalised, as ``RelyingPartyID`` holds it).
    func passkeyRelyingPartyIndex(_ rpID: String) -> [UInt8] {
        KeyedHash.digest(key: indexKey, fields: [Array("passkey-rp".utf8), Array(rpID.utf8)])
    }

    /// The blind index of a passkey's credential ID.
    func passkeyCredentialIndex(_ credentialID: [UInt8]) -> [UInt8] {
        KeyedHash.digest(key: indexKey, fields: [Array("passkey-credential".utf8), credentialID])
    }

    private func portField(_ port: Int?) -> [UInt8] {
        withUnsafeBytes(of: UInt32(port ?? 0).littleEndian) { Array($0) }
    }

    // MARK: Token hashes

    /// The stored hash of an app token's random bytes.
    func tokenHash(_ secret: SecureBytes) -> [UInt8] {
        var field = secret.withUnsafeBytes { Array($0) }
        let digest = KeyedHash.digest(key: tokenKey, fields: [Array("app-token".utf8), field])
        field.withUnsafeMutableBytes { if let base = $0.baseAddress { sodium_memzero(base, $0.count) } }
        return digest
    }

    /// The stored hash of a browser's identification key (``BrowserAssociationStore``): keyed as
    /// an app token's is, so that a copy of the vault file holds nothing a browser proves.
    func browserKeyHash(_ identificationKey: [UInt8]) -> [UInt8] {
        KeyedHash.digest(key: tokenKey, fields: [Array("browser-identification-key".utf8), identificationKey])
    }

    // MARK: Associated data

    /// Binds a sealed credential to its row id, both indexes, its version and the format version,
    /// so that an older blob of the same row (a rollback) opens only with its older version, which
    /// the record commitment no longer holds.
    static func credentialAssociatedData(
        id: some Collection<UInt8>, serverIndex: some Collection<UInt8>, accountIndex: some Collection<UInt8>,
        version: Int64, format: UInt32 = VaultKeys.formatVersion
    ) -> [UInt8] {
        Array(id).withUnsafeBytes { id in
            Array(serverIndex).withUnsafeBytes { serverIndex in
                Array(accountIndex).withUnsafeBytes { accountIndex in
                    withCredentialAssociatedData(
                        id: id, serverIndex: serverIndex, accountIndex: accountIndex, version: version, format: format
                    ) { Array($0) }
                }
            }
        }
    }

    /// ``credentialAssociatedData(id:serverIndex:accountIndex:version:format:)`` written into a
    /// buffer on the stack and lent to `body`: opening every credential of a request without a
    /// domain made an array for each (1.5 M of 19.2 M instructions for 1,000 credentials).
    static func withCredentialAssociatedData<Result>(
        id: UnsafeRawBufferPointer, serverIndex: UnsafeRawBufferPointer, accountIndex: UnsafeRawBufferPointer,
        version: Int64, format: UInt32 = VaultKeys.formatVersion, _ body: (UnsafeRawBufferPointer) -> Result
    ) -> Result {
        let label: StaticString = "swcred/credential"
        let count = label.utf8CodeUnitCount + 1 + 4 + 4 * 4 + id.count + serverIndex.count + accountIndex.count + 8
        return withUnsafeTemporaryAllocation(byteCount: count, alignment: 1) { buffer in
            var cursor = buffer.baseAddress!
            put(UnsafeRawBufferPointer(start: label.utf8Start, count: label.utf8CodeUnitCount), at: &cursor)
            put(UInt8(0), at: &cursor)
            put(format.littleEndian, at: &cursor)
            putPart(id, at: &cursor)
            putPart(serverIndex, at: &cursor)
            putPart(accountIndex, at: &cursor)
            put(UInt32(8).littleEndian, at: &cursor)
            put(version.littleEndian, at: &cursor)
            precondition(cursor == buffer.baseAddress! + count)
            return body(UnsafeRawBufferPointer(buffer))
        }
    }

    /// Copies `bytes` to `cursor` and moves it past them.
    private static func put(_ bytes: UnsafeRawBufferPointer, at cursor: inout UnsafeMutableRawPointer) {
        if let base = bytes.baseAddress { cursor.copyMemory(from: base, byteCount: bytes.count) }
        cursor += bytes.count
    }

    /// Stores `value`'s bytes at `cursor`, unaligned, and moves it past them.
    private static func put<Value: FixedWidthInteger>(_ value: Value, at cursor: inout UnsafeMutableRawPointer) {
        cursor.storeBytes(of: value, as: Value.self)
        cursor += MemoryLayout<Value>.size
    }

    /// One length-prefixed part, as ``appendPart(_:to:)`` appends it to an array.
    private static func putPart(_ bytes: UnsafeRawBufferPointer, at cursor: inout UnsafeMutableRawPointer) {
        put(UInt32(bytes.count).littleEndian, at: &cursor)
        put(bytes, at: &cursor)
    }

    /// Binds a sealed passkey to its row id, both indexes, its version and the format version,
    /// as ``credentialAssociatedData(id:serverIndex:accountIndex:version:format:)`` does for a
    /// password: a blob moved to another row, or an older blob of the same row, does not open.
    static func passkeyAssociatedData(
        id: some Collection<UInt8>, rpIndex: some Collection<UInt8>, credentialIndex: some Collection<UInt8>,
        version: Int64
    ) -> [UInt8] {
        var data = associatedDataHeader(label: "swcred/passkey", format: formatVersion, capacity: 4 * 4 + 16 + 72)
        appendPart(id, to: &data)
        appendPart(rpIndex, to: &data)
        appendPart(credentialIndex, to: &data)
        withUnsafeBytes(of: version.littleEndian) { appendPart($0, to: &data) }
        return data
    }

    /// The associated data of a format-1 credential (no version), read only by ``FormatUpgrade``.
    static func legacyCredentialAssociatedData(
        id: some Collection<UInt8>, serverIndex: some Collection<UInt8>, accountIndex: some Collection<UInt8>
    ) -> [UInt8] {
        var data = associatedDataHeader(
            label: "swcred/credential", format: legacyFormatVersion, capacity: 3 * 4 + 16 + 64)
        appendPart(id, to: &data)
        appendPart(serverIndex, to: &data)
        appendPart(accountIndex, to: &data)
        return data
    }

    /// Binds a sealed audit entry (its domain and account) to its sequence number.
    static func auditAssociatedData(sequence: Int64) -> [UInt8] {
        associatedData(
            label: "swcred/audit", format: formatVersion,
            parts: [withUnsafeBytes(of: sequence.littleEndian) { Array($0) }])
    }

    /// Binds a sealed entry of an instance's audit chain to the chain's name and its sequence
    /// number there (``AuditScope``).
    static func auditAssociatedData(chain: [UInt8], sequence: Int64) -> [UInt8] {
        associatedData(
            label: "swcred/audit-chain", format: formatVersion,
            parts: [chain, withUnsafeBytes(of: sequence.littleEndian) { Array($0) }])
    }

    /// Binds a sealed "never save" host to its index and the format version (`format` is the
    /// legacy one only when ``FormatUpgrade`` reads a format-1 marker).
    static func neverSaveAssociatedData(hostIndex: [UInt8], format: UInt32 = VaultKeys.formatVersion) -> [UInt8] {
        associatedData(label: "swcred/never-save", format: format, parts: [hostIndex])
    }

    /// Binds the wrapped vault key to its key id, how it is protected and the vault's format.
    ///
    /// The format is bound here, where no one without the passphrase or key file can change it,
    /// so that an attacker who edits `vault_meta.format_version` back to 1 cannot send an upgraded
    /// vault down the legacy, unauthenticated path: the key then fails to unwrap.
    static func wrappedKeyAssociatedData(
        keyID: [UInt8], protection: VaultMetadata.Protection, format: UInt32 = VaultKeys.formatVersion,
        epoch: Int64
    ) -> [UInt8] {
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
        // Epoch 0 (a key wrapped before the state was sealed) adds nothing, so such a key still
        // opens until its first unlock seals the state and moves it to epoch 1.
        if epoch > 0 {
            parts.append(Array("epoch".utf8))
            parts.append(withUnsafeBytes(of: epoch.littleEndian) { Array($0) })
        }
        return associatedData(label: "swcred/vault-key", format: format, parts: parts)
    }

    private static func associatedData(label: String, format: UInt32, parts: [[UInt8]]) -> [UInt8] {
        var data = associatedDataHeader(label: label, format: format, capacity: parts.reduce(0) { $0 + 4 + $1.count })
        for part in parts { appendPart(part, to: &data) }
        return data
    }

    /// The label, a zero byte and the format version that start every associated data.
    private static func associatedDataHeader(label: String, format: UInt32, capacity: Int) -> [UInt8] {
        var data: [UInt8] = []
        data.reserveCapacity(label.utf8.count + 5 + capacity)
        data.append(contentsOf: label.utf8)
        data.append(0)
        withUnsafeBytes(of: format.littleEndian) { data.append(contentsOf: $0) }
        return data
    }

    /// Appends one length-prefixed part.
    private static func appendPart(_ part: some Collection<UInt8>, to data: inout [UInt8]) {
        withUnsafeBytes(of: UInt32(part.count).littleEndian) { data.append(contentsOf: $0) }
        data.append(contentsOf: part)
    }
}
