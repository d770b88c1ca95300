import Foundation
import GRDB
import TestSupport
import Testing

@testable import SharedWebCredentials

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 11, findings 3 and 9: what `passwd` revokes and what it does not, `passwd --rekey`,
/// concurrent key changes, writers during a rotation, and KDF parameters from the file.
@Suite("Passphrase and key changes")
struct KeyChangeTests {
    typealias Support = VaultTestSupport

    private func vaultMetaRow(_ path: String) throws -> Row {
        try #require(try Attacker(path: path).rows("SELECT * FROM vault_meta").first)
    }

    /// Puts a saved `vault_meta` row back, as an attacker with an old copy of the file would: its
    /// key columns. (Putting the audit log's sealed head back too is caught by `audit verify`:
    /// ``rolledBackAuditHead()``.)
    private func restore(_ row: Row, into path: String) throws {
        let columns = Array(row.columnNames).filter { !$0.hasPrefix("audit_") }
        try Attacker(path: path).execute(
            "UPDATE vault_meta SET \(columns.map { "\($0) = ?" }.joined(separator: ", ")) WHERE id = 1",
            arguments: StatementArguments(columns.map { row[$0] as DatabaseValue }))
    }

    @Test("an old passphrase's vault_meta row put back: refused unless its epoch goes back too, and then caught")
    func oldWrappingPutBack() throws {
        let directory = try TemporaryDirectory()
        let vault = try Support.makeVault(in: directory)
        try vault.items.set(server: "example.com", account: "alice", password: SecureBytes(utf8: "alice-pw"))
        let leaked = try vaultMetaRow(vault.path)
        try vault.changePassphrase(to: SecureBytes(utf8: "second passphrase: amber quasar lattice ferry 71"))
        // The old wrapping alone: the epoch is bound into the wrapped key, so it unwraps nothing.
        try Attacker(path: vault.path).execute(
            "UPDATE vault_meta SET wrapped_key = ?, kdf_salt = ?",
            arguments: [leaked["wrapped_key"] as Data, leaked["kdf_salt"] as Data])
        #expect(failure { _ = try Support.open(vault.path) }?.code == .vaultLocked)
        // With its epoch too it unwraps, but this process saw epoch 2: refused at unlock.
        try Attacker(path: vault.path).execute(
            "UPDATE vault_meta SET key_epoch = ?", arguments: [leaked["key_epoch"] as Int64])
        let refused = failure { _ = try Support.open(vault.path) }
        #expect(refused?.code == .integrityFailure, "\(String(describing: refused))")
        #expect(refused?.message.contains("key epoch went back from 2 to 1") == true, "\(String(describing: refused))")
        // A process that never saw epoch 2 opens it (one file cannot show more), but the seal
        // binds the epoch: `status --verify` reports it and nothing can be written.
        StateHighWater.forget(vault.path)
        let opened = try Support.open(vault.path)
        #expect(try !opened.integrityReport().stateSealMatches)
        let write = failure {
            try opened.items.set(server: "example.com", account: "bob", password: SecureBytes(utf8: "bob-pw"))
        }
        #expect(write?.code == .integrityFailure, "\(String(describing: write))")
        #expect(try opened.credentials.find(server: "example.com", account: "bob").isEmpty)
    }

    @Test("passwd alone leaves the old passphrase reading records with the whole old row; passwd --rekey does not")
    func passwdVersusRekey() throws {
        let directory = try TemporaryDirectory()
        let vault = try Support.makeVault(in: directory)
        try vault.credentials.upsert(server: "example.com", account: "alice", password: SecureBytes(utf8: "alice-pw"))
        let leaked = try vaultMetaRow(vault.path)
        let environment = [
            "SWCRED_VAULT": vault.path, "SWCRED_PASSPHRASE": Support.passphrase,
            "SWCRED_NEW_PASSPHRASE": "second passphrase: amber quasar lattice ferry 71",
        ]
        let passwd = try SwcredProcess.run(["passwd"], environment: environment)
        #expect(passwd.status == 0, "\(passwd.stderr)")
        let afterPasswd = try vaultMetaRow(vault.path)
        // The documented limit: the vault key did not change, so the whole old row (its epoch and
        // seal too) and the old passphrase still read what did not change since. The seal no
        // longer matches the audit head beside it, so every write is refused.
        try restore(leaked, into: vault.path)
        let reader = try Support.open(vault.path)
        #expect(try reader.credentials.find(server: "example.com").map(\.passwordText) == ["alice-pw"])
        #expect(try !reader.integrityReport().stateSealMatches)
        let refusedRekey = try SwcredProcess.run(["passwd", "--rekey"], environment: environment)
        #expect(refusedRekey.status == 9, "\(refusedRekey.stderr)")
        #expect(refusedRekey.stderr.contains("sealed state"), "\(refusedRekey.stderr)")

        // `passwd --rekey` from the real row: the leaked one then unwraps a retired key.
        try restore(afterPasswd, into: vault.path)
        let current = [
            "SWCRED_VAULT": vault.path, "SWCRED_PASSPHRASE": "second passphrase: amber quasar lattice ferry 71",
            "SWCRED_NEW_PASSPHRASE": "third passphrase: velvet comet harbor quill 38",
        ]
        let rekeyed = try SwcredProcess.run(["passwd", "--rekey"], environment: current)
        #expect(rekeyed.status == 0, "\(rekeyed.stderr)")
        #expect(rekeyed.stdout.contains("rotated the vault key"))
        let opened = try Support.open(vault.path, passphrase: "third passphrase: velvet comet harbor quill 38")
        #expect(try opened.credentials.find(server: "example.com").map(\.passwordText) == ["alice-pw"])
        try opened.verifyIntegrity()
        // The leaked row unwraps the retired key: this process saw epoch 3 and refuses it; a
        // process that did not finds that the retired key opens nothing stored now.
        try restore(leaked, into: vault.path)
        #expect(failure { _ = try Support.open(vault.path) }?.code == .integrityFailure)
        StateHighWater.forget(vault.path)
        let withOldKey = try Support.open(vault.path)
        #expect(try withOldKey.credentials.find(server: "example.com").isEmpty, "its blind indexes match nothing")
        #expect(failure { _ = try withOldKey.credentials.servers() }?.code == .integrityFailure)
        #expect(!(try withOldKey.integrityReport().isIntact))
    }

    @Test(
        "a key rotation revokes every app token with a token-revoke entry each, before its own",
        arguments: [false, true])
    func rotationRecordsRevocations(throughPasswd: Bool) throws {
        let directory = try TemporaryDirectory()
        let vault = try Support.makeVault(in: directory)
        let app = try ApplicationIdentifier("ABCDE12345.com.example.app")
        try vault.apps.register(app, entitlements: Entitlements(strings: ["webcredentials:shop.example"]), at: Date())
        let issued = [
            try vault.appTokens.create(app: app, permissions: [.request], consent: .none, expiresAt: nil),
            try vault.appTokens.create(app: app, permissions: [.add], consent: .ask, expiresAt: nil),
        ]
        if throughPasswd {
            try vault.changePassphrase(
                to: SecureBytes(utf8: "second passphrase: amber quasar lattice ferry 71"), rotatingKey: true)
        } else {
            #expect(try vault.rotateKey().revokedAppTokens == 2)
        }
        let entries = try vault.audit.entries()
        let revocations = entries.suffix(3).dropLast()
        #expect(
            revocations.map(\.event.operation) == [.tokenRevoke, .tokenRevoke], "\(entries.map(\.event.operation))")
        for token in issued {
            let entry = revocations.first { $0.event.detail?.hasPrefix("token \(token.record.id);") == true }
            #expect(entry?.event.app == app.description)
            #expect(
                entry?.event.detail?.contains(
                    throughPasswd ? "revoked by `swcred passwd --rekey`" : "revoked by the vault key's rotation")
                    == true)
        }
        #expect(entries.last?.event.operation == (throughPasswd ? .passwd : .rekey))
        #expect(try vault.audit.verify().isIntact)
        #expect(try vault.appTokens.list(app: app).isEmpty)
    }

    @Test("passwd --help says that passwd alone does not revoke the old passphrase")
    func passwdHelp() throws {
        let help = try SwcredProcess.run(["passwd", "--help"])
        #expect(help.stdout.contains("--rekey"))
        let words = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(words.contains("the old passphrase still opens any copy of the vault made before"), "\(words)")
    }

    @Test("two passwd processes at once: one wins, the other fails clearly and changes nothing")
    func concurrentPasswd() throws {
        let directory = try TemporaryDirectory()
        let vault = try Support.makeVault(in: directory)
        try vault.credentials.upsert(server: "example.com", account: "alice", password: SecureBytes(utf8: "alice-pw"))
        // Each process unlocks, then blocks reading its new passphrase from a FIFO; the test
        // answers both only once both have unlocked, so both read the same key material.
        let fifos = ["first", "second"].map { directory.path("\($0).fifo") }
        for fifo in fifos { #expect(mkfifo(fifo, 0o600) == 0) }
        let processes = try fifos.map { fifo in
            let process = Process()
            process.executableURL = SwcredProcess.executableURL
            process.arguments = ["passwd", "--vault", vault.path, "--new-passphrase-file", fifo]
            process.environment = ["PATH": "/usr/bin:/bin", "SWCRED_PASSPHRASE": Support.passphrase]
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = Pipe()
            try process.run()
            return (process, errors)
        }
        var writers: [Int32] = []
        for (fifo, (process, _)) in zip(fifos, processes) {
            writers.append(try openWhenReaderArrives(fifo, process: process))
        }
        for (descriptor, passphrase) in zip(
            writers, ["winner one: cobalt meadow pivot sundial 48", "winner two: russet glacier tonic harbor 26"])
        {
            _ = passphrase.withCString { write(descriptor, $0, strlen($0)) }
            close(descriptor)
        }
        var outcomes: [(status: Int32, stderr: String)] = []
        for (process, errors) in processes {
            let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            outcomes.append((process.terminationStatus, stderr))
        }
        #expect(outcomes.map(\.status).sorted() == [0, 7], "\(outcomes)")
        let loser = try #require(outcomes.first { $0.status == 7 })
        #expect(loser.stderr.contains("Another process changed the passphrase"), "\(loser.stderr)")
        let winner =
            outcomes[0].status == 0
            ? "winner one: cobalt meadow pivot sundial 48" : "winner two: russet glacier tonic harbor 26"
        let loserPassphrase =
            outcomes[0].status == 0
            ? "winner two: russet glacier tonic harbor 26" : "winner one: cobalt meadow pivot sundial 48"
        #expect(try Support.open(vault.path, passphrase: winner).credentials.count() == 1)
        #expect(failure { _ = try Support.open(vault.path, passphrase: loserPassphrase) }?.code == .vaultLocked)
    }

    /// Opens `fifo` for writing once `process` has opened it for reading (polling, so that a
    /// process that failed before reading does not hang the test).
    private func openWhenReaderArrives(_ fifo: String, process: Process) throws -> Int32 {
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline {
            let descriptor = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
            if descriptor >= 0 { return descriptor }
            guard errno == ENXIO, process.isRunning else { break }
            usleep(10_000)
        }
        throw SharedWebCredentialsError(.internalError, "passwd never read its new passphrase from \(fifo)")
    }

    @Test("a passphrase change by another handle since unlock makes this one's change fail, not overwrite")
    func changePassphraseCompareAndSwap() throws {
        let directory = try TemporaryDirectory()
        let first = try Support.makeVault(in: directory)
        let second = try Support.open(first.path)
        try first.changePassphrase(to: SecureBytes(utf8: "first wins"))
        let error = failure { try second.changePassphrase(to: SecureBytes(utf8: "second loses")) }
        #expect(error?.code == .vaultLocked)
        #expect(failure { try second.rotateKey() }?.code == .vaultLocked, "rekey compares and swaps too")
        #expect(try Support.open(first.path, passphrase: "first wins").credentials.count() == 0)
    }

    @Test(
        "a holder that does not follow key changes (the service) fails after another's rotation, and notices both changes"
    )
    func holderThatDoesNotFollow() throws {
        let directory = try TemporaryDirectory()
        let created = try Support.makeVault(in: directory)
        try created.credentials.upsert(server: "example.com", account: "alice", password: SecureBytes(utf8: "one"))
        var configuration = VaultConfiguration()
        configuration.followsKeyChanges = false
        func holder() throws -> Vault {
            try Vault.open(
                at: created.path, secret: .passphrase(SecureBytes(utf8: Support.passphrase)),
                configuration: configuration)
        }
        // A rotation under the same passphrase: a holder that followed it could unwrap the new key.
        let rotated = try holder()
        #expect(try rotated.isUnlockCurrent())
        try Support.open(created.path).rotateKey()
        #expect(try !rotated.isUnlockCurrent(), "a new key ends the unlock made before it")
        let code = Support.errorCode {
            _ = try rotated.credentials.upsert(
                server: "example.com", account: "bob", password: SecureBytes(utf8: "two"))
        }
        #expect(code == .vaultLocked, "the holder went on under a key it was not unlocked with")
        #expect(try Support.open(created.path).credentials.find(server: "example.com").map(\.passwordText) == ["one"])
        // A new passphrase for the same key.
        let rewrapped = try holder()
        try Support.open(created.path).changePassphrase(to: SecureBytes(utf8: "second passphrase: amber quasar"))
        #expect(try !rewrapped.isUnlockCurrent(), "a new passphrase ends the unlock made with the old one")
    }

    @Test("a write after another handle rotated the key retries with the new key instead of failing")
    func writeDuringRekey() async throws {
        let directory = try TemporaryDirectory()
        let writer = try Support.makeVault(in: directory)
        try writer.credentials.upsert(server: "example.com", account: "alice", password: SecureBytes(utf8: "one"))
        try writer.apps.register(
            LoopbackSite.app, entitlements: Entitlements(strings: ["webcredentials:example.com"]), at: Date())
        let rotator = try Support.open(writer.path)
        try rotator.rotateKey()
        // The first write after the rotation is a group-committed audit entry: sealed under the
        // new key, which the same statement as the chain's head told it about.
        _ = try await writer.audit.append(AuditEvent(actor: .owner, operation: .export))
        #expect(try rotator.audit.verify().problem == nil)
        // The app's MAC is now under the new key: the reader picks that key up rather than fail.
        #expect(try writer.apps.require(LoopbackSite.app).identifier == LoopbackSite.app)
        #expect(
            try writer.credentials.upsert(server: "example.com", account: "bob", password: SecureBytes(utf8: "two"))
                == .added)
        #expect(try writer.credentials.find(server: "example.com").map(\.passwordText) == ["one", "two"])
        #expect(try rotator.credentials.find(server: "example.com", account: "bob").map(\.passwordText) == ["two"])
        try Support.open(writer.path).verifyIntegrity()
    }

    @Test("a crafted kdf_opslimit of 4294967295 is refused before any KDF runs (exit 9)")
    func kdfParametersCapped() throws {
        let directory = try TemporaryDirectory()
        let path = try Support.makeVault(in: directory).path
        try Attacker(path: path).execute("UPDATE vault_meta SET kdf_opslimit = 4294967295")
        let started = Date()
        let error = failure { _ = try Support.open(path) }
        #expect(Date().timeIntervalSince(started) < 5, "no KDF ran")
        #expect(error?.code == .integrityFailure)
        #expect(error?.message.contains("opslimit 4294967295") == true, "\(String(describing: error))")
        let command = try SwcredProcess.run(
            ["status", "--verify", "--vault", path], environment: ["SWCRED_PASSPHRASE": Support.passphrase])
        #expect(command.status == 9, "\(command.stderr)")
        try Attacker(path: path).execute(
            "UPDATE vault_meta SET kdf_opslimit = 1, kdf_memlimit = ?", arguments: [Int64(4) << 30])
        #expect(failure { _ = try Support.open(path) }?.code == .integrityFailure)
        #expect(throws: SharedWebCredentialsError.self) { try KDFParameters(opslimit: 11, memlimit: 8192) }
        #expect(throws: SharedWebCredentialsError.self) { try KDFParameters(opslimit: 1, memlimit: (2 << 30) + 1) }
        #expect(try KDFParameters(opslimit: 10, memlimit: 2 << 30).opslimit == 10)
    }
}
