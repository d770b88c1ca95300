import Testing

@testable import SharedWebCredentials

/// What must never repeat: every byte of every AEAD nonce is fresh, and the password generators'
/// random stream does not cycle from one block to the next.
@Suite("Fresh randomness: nonces and the generators' stream")
struct FreshRandomnessTests {
    @Test("each of the 24 nonce bytes varies from seal to seal")
    func everyNonceByteIsRandom() {
        let key = SecureBytes.random(count: AuthenticatedEncryption.keyLength)
        let nonces = (0..<64).map { _ in
            Array(AuthenticatedEncryption.seal(SecureBytes(utf8: "same"), key: key, associatedData: [1]).prefix(24))
        }
        #expect(AuthenticatedEncryption.nonceLength == 24)
        for position in 0..<24 {
            // 64 uniform bytes are all equal with probability 256^-63.
            #expect(Set(nonces.map { $0[position] }).count > 1, "nonce byte \(position) never changes")
        }
    }

    @Test("consecutive blocks of SecureRandom output differ, across a reseed too")
    func randomBlocksDoNotRepeat() {
        var random = SecureRandom()
        var blocks: [[UInt8]] = []
        for _ in 0..<(SecureRandom.reseedInterval + 2) {
            blocks.append((0..<SecureRandom.bufferSize).map { _ in random.nextByte() })
        }
        #expect(Set(blocks).count == blocks.count, "a block of random output repeated")
        for block in blocks {
            #expect(Set(block).count > 200, "a block of random output is far from uniform")
        }
    }
}
