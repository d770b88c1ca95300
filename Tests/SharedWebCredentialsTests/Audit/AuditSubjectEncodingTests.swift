import Testing

@testable import SharedWebCredentials
@testable import TestSupport

/// The sealed part of an audit entry opens only as exactly what was sealed: bytes left over after
/// its last field, or a field cut short, make the entry unreadable (which `audit verify` reports),
/// never an entry that reads as something else.
@Suite("Audit log: the sealed subject's encoding")
struct AuditSubjectEncodingTests {
    private static let associatedData = Array("audit entry 7".utf8)

    private static let events = [
        AuditEvent(
            actor: AuditActor(name: "ABCDE12345.com.example.app"), operation: .request, domain: "shop.example",
            released: [AuditCredential(domain: "shop.example", account: "alice")]),
        AuditEvent(
            actor: AuditActor(name: "owner"), operation: .request, domain: "shop.example", account: "bob",
            detail: "a detail"),
    ]

    /// `subject`'s plaintext, changed by `change`, sealed again under the same key and data.
    private static func resealed(
        _ subject: AuditSubject, keys: VaultKeys, _ change: (inout [UInt8]) -> Void
    ) throws -> [UInt8] {
        let sealed = try subject.sealed(associatedData: associatedData, keys: keys)
        let opened = try #require(
            sealed.withUnsafeBytes {
                AuthenticatedEncryption.open($0, key: keys.recordKey, associatedData: associatedData)
            })
        var plain = opened.withUnsafeBytes { Array($0) }
        change(&plain)
        return plain.withUnsafeBytes {
            AuthenticatedEncryption.seal($0, key: keys.recordKey, associatedData: associatedData)
        }
    }

    @Test("as sealed it opens; with bytes left after its last field, or that field cut short, it does not")
    func exactLength() throws {
        let directory = try TemporaryDirectory()
        let vault = try VaultTestSupport.makeVault(in: directory)
        try vault.read { _, keys in
            for event in Self.events {
                let subject = AuditSubject(event)
                let unchanged = try Self.resealed(subject, keys: keys) { _ in }
                let opened = try #require(AuditSubject.open(unchanged, associatedData: Self.associatedData, keys: keys))
                #expect(opened.domain == event.domain && opened.account == event.account)
                #expect(opened.detail == event.detail)
                // After the released credentials only a whole detail may follow; after a detail, nothing.
                let leftovers: [[UInt8]] = event.detail == nil ? [[0], [1], [2, 0]] : [[0], [1], [1, 0, 0, 0, 0]]
                for extra in leftovers {
                    let longer = try Self.resealed(subject, keys: keys) { $0 += extra }
                    #expect(
                        AuditSubject.open(longer, associatedData: Self.associatedData, keys: keys) == nil,
                        "\(extra) after the last field")
                }
                let shorter = try Self.resealed(subject, keys: keys) { $0.removeLast() }
                #expect(AuditSubject.open(shorter, associatedData: Self.associatedData, keys: keys) == nil)
            }
        }
    }
}
