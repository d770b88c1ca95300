#if GuardedSecrets
    import Foundation
    import Testing

    @testable import SharedWebCredentials

    /// Built with the `GuardedSecrets` trait (`Scripts/test --guarded`), every secret sits alone
    /// between a guard page and a canary. These tests prove the guard is really there, so that a
    /// guarded run of the whole suite means "no out-of-bounds access to a secret", not "nothing
    /// was checked": each bad access runs in a child process that must die of it.
    @Suite("guarded secrets: out-of-bounds access to a secret traps")
    struct GuardedSecretsTests {
        @Test("reading one byte past a secret's end hits the guard page", arguments: [1, 32, 64, 4096, 10_000])
        func overrunTraps(count: Int) async {
            await #expect(processExitsWith: .signal(SIGSEGV)) { [count] in
                let secret = SecureBytes.random(count: count)
                let beyond = secret.withUnsafeBytes { $0.baseAddress!.load(fromByteOffset: count, as: UInt8.self) }
                print(beyond)
            }
        }

        /// libsodium's `sodium_free` finds the canary changed and raises SIGSEGV itself.
        @Test("writing one byte before a secret's start is caught by the canary when it is released")
        func underrunTraps() async {
            await #expect(processExitsWith: .signal(SIGSEGV)) {
                let secret = SecureBytes.random(count: 32)
                secret.withUnsafeBytes {
                    UnsafeMutableRawPointer(mutating: $0.baseAddress! - 1).storeBytes(of: 0x5A, as: UInt8.self)
                }
            }
        }

        @Test("in-bounds use of every size still works: the last byte is readable and the bytes round-trip")
        func inBoundsUse() {
            for count in [0, 1, 63, 64, 65, 4096, 10_000] {
                let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31) }
                let secret = SecureBytes(copying: bytes)
                #expect(secret.withUnsafeBytes { Array($0) } == bytes)
            }
        }
    }
#endif
