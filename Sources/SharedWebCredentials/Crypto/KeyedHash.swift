import CSodium

/// Keyed BLAKE2b (`crypto_generichash`), used for blind indexes: equal inputs give equal
/// digests under one key, and without the key a digest reveals nothing about its input.
enum KeyedHash {
    /// The digest length in bytes.
    static let digestLength = 32

    /// The keyed digest of `fields`, each length-prefixed so that field boundaries are unambiguous.
    static func digest(key: SecureBytes, fields: [[UInt8]]) -> [UInt8] {
        var message = Message(capacity: fields.reduce(0) { $0 + 4 + $1.count })
        for field in fields { message.append(field: field) }
        return digest(key: key, message: &message)
    }

    /// The keyed digest of `message`, whose bytes are zeroed afterwards.
    static func digest(key: SecureBytes, message: inout Message) -> [UInt8] {
        Sodium.ensureInitialized()
        var digest = [UInt8](repeating: 0, count: digestLength)
        let status = key.withUnsafeBytes { keyBytes in
            crypto_generichash(
                &digest, digestLength, message.bytes, UInt64(message.bytes.count),
                keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self), keyBytes.count)
        }
        precondition(status == 0, "crypto_generichash failed")
        sodium_memzero(&message.bytes, message.bytes.count)
        return digest
    }

    /// The fields of one digest, written one after the other into one buffer, each after its
    /// length (four bytes, little-endian): what ``digest(key:fields:)`` hashes, without an array
    /// for every field.
    struct Message {
        fileprivate(set) var bytes: [UInt8] = []

        init(capacity: Int) { bytes.reserveCapacity(capacity) }

        /// Appends one field.
        mutating func append(field: some Collection<UInt8>) {
            appendLength(field.count)
            bytes.append(contentsOf: field)
        }

        /// Appends one field made of `tag` followed by `payload`.
        mutating func append(field payload: some Collection<UInt8>, taggedWith tag: UInt8) {
            appendLength(1 + payload.count)
            bytes.append(tag)
            bytes.append(contentsOf: payload)
        }

        private mutating func appendLength(_ count: Int) {
            withUnsafeBytes(of: UInt32(count).littleEndian) { bytes.append(contentsOf: $0) }
        }
    }
}
