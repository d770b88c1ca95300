import Foundation
import TestSupport
import Testing

@testable import SharedWebCredentials

/// Numbers at the limit of 64 bits written into the vault file by someone who can write it: each
/// operation that counts on from one fails with an integrity failure (exit 9) instead of
/// trapping on an overflowing sum, and the next operation still runs.
@Suite("Stored numbers at their limit")
struct StoredNumberTests {
    private static let largest = Int64.max

    @Test("an audit entry numbered 2^63-1: every audited write fails closed, item set exits 9, nothing crashes")
    func auditSequenceAtLimit() throws {
        let directory = try TemporaryDirectory()
        let vault = try VaultTestSupport.makeVault(in: directory)
        let app = try ApplicationIdentifier("ABCDE12345.com.example.app")
        try vault.apps.register(app, entitlements: Entitlements(strings: ["webcredentials:shop.example"]), at: Date())
        try Attacker(path: vault.path).execute(
            "INSERT INTO audit_log (seq, at, actor, operation, outcome, sealed, tag) VALUES (\(Self.largest), 0, 'owner', 'add', 'done', x'00', zeroblob(32))"
        )
        for write in [
            { _ = try vault.appTokens.create(app: app, permissions: [.request], consent: .none, expiresAt: nil) },
            { try vault.neverSave.mark("shop.example") },
            {
                try vault.apps.register(
                    app, entitlements: Entitlements(strings: ["webcredentials:a.example"]), at: Date())
            },
        ] as [() throws -> Void] {
            let refused = failure(write)
            #expect(refused?.code == .integrityFailure, "\(String(describing: refused))")
            #expect(
                refused?.message.contains("The audit log's last entry number in \(vault.path) is \(Self.largest)")
                    == true, "\(String(describing: refused))")
        }
        let environment = ["SWCRED_PASSPHRASE": VaultTestSupport.passphrase]
        let set = try SwcredProcess.run(
            ["item", "set", "shop.example", "--account", "alice", "--generate", "--yes", "--vault", vault.path],
            environment: environment)
        #expect(set.status == 9, "\(set.stdout)\(set.stderr)")
        #expect(set.stderr.contains("last entry number"), "\(set.stderr)")
    }

    @Test("a failed-guess count or next turn at the limit: the next guess fails closed instead of trapping")
    func guessCountAtLimit() throws {
        for column in ["failed_guesses", "next_guess_at"] {
            let directory = try TemporaryDirectory()
            let vault = try VaultTestSupport.makeVault(in: directory)
            let throttle = GuessThrottle(store: vault.store)
            _ = try throttle.reserveTurn()
            try Attacker(path: vault.path).execute("UPDATE vault_meta SET \(column) = \(Self.largest)")
            let refused = failure { _ = try throttle.reserveTurn() }
            #expect(refused?.code == .integrityFailure, "\(column): \(String(describing: refused))")
            #expect(refused?.message.contains("is \(Self.largest)") == true, "\(String(describing: refused))")
        }
    }

    @Test("a key epoch at the limit: a key change fails closed (the state seal, which binds the epoch, fails first)")
    func keyEpochAtLimit() throws {
        let directory = try TemporaryDirectory()
        let vault = try VaultTestSupport.makeVault(in: directory)
        try Attacker(path: vault.path).execute("UPDATE vault_meta SET key_epoch = \(Self.largest)")
        #expect(failure { try vault.rotateKey() }?.code == .integrityFailure)
    }

    @Test("one more than the largest stored number is refused by name, the largest but one is not")
    func sumAtLimit() throws {
        #expect(try StoredNumber.adding(1, to: Self.largest - 1, "n", path: "p") == Self.largest)
        let refused = failure { _ = try StoredNumber.adding(1, to: Self.largest, "The count", path: "/v") }
        #expect(refused?.code == .integrityFailure)
        #expect(
            refused?.message.hasPrefix("The count in /v is \(Self.largest)") == true, "\(String(describing: refused))")
    }
}
