import Foundation
import TestSupport
import Testing

/// A revoked token's row put back into the vault file while the service runs, as someone who
/// can write the file would (with `sqlite3`, from a copy kept before the revocation): the service
/// refuses it with a 500 and a log line naming the problem, releases nothing, and
/// `status --verify` exits 9.
@Suite("swcred serve: a revoked token put back in the file", .serialized)
struct ServiceGrantRollbackTests {
    private func sqlite3(_ path: String, _ sql: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [path, sql]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "sqlite3 \(sql)")
        return String(decoding: data, as: UTF8.self)
    }

    /// Starts the service and saves alice's password at shop.example through an app's token.
    private func startWithAlice(_ fixture: ServiceFixture) throws {
        try fixture.start()
        let writer = try fixture.token(["--allow", "add"])
        let saved = try fixture.call(
            "PUT", "/v1/credentials", token: writer,
            json: ["domain": "shop.example", "account": "alice", "password": "Pw-alice-1"])
        #expect(saved.status == 200, "\(saved.text)")
    }

    @Test(
        "an old vault_meta row put back after passwd or rekey cannot unlock the service that saw the change",
        arguments: [["passwd"], ["rekey"]])
    func oldRowPutBack(command: [String]) async throws {
        try await ServiceFixture.with { fixture in
            try fixture.start()
            let path = fixture.gated.vaultPath
            let columns = [
                "kdf_salt", "kdf_opslimit", "kdf_memlimit", "key_id", "wrapped_key", "record_commitment", "key_epoch",
                "grant_set", "state_seal",
            ]
            let kept = try sqlite3(
                path,
                "SELECT 'UPDATE vault_meta SET ' || \(columns.map { "'\($0) = ' || quote(\($0))" }.joined(separator: " || ', ' || ")) || ' WHERE id = 1;' FROM vault_meta"
            )
            var environment = fixture.gated.environment
            environment["SWCRED_NEW_PASSPHRASE"] = "a new passphrase: velvet comet harbor quill 38"
            let changed = try SwcredProcess.run(command, environment: environment)
            #expect(changed.status == 0, "\(changed.stderr)")
            var locked = false
            for _ in 0..<50 where !locked {
                locked = (try fixture.call("GET", "/v1/health").json as? [String: Any])?["locked"] as? Bool == true
                if !locked { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(locked, "the service still holds the earlier unlock 5 s after \(command)")

            // The old row put back: the old passphrase unwraps the vault key it held (the same
            // one after passwd, the retired one after rekey) at epoch 1.
            _ = try sqlite3(path, kept)
            let refused = try fixture.call("POST", "/v1/unlock", json: ["passphrase": fixture.gated.passphrase])
            #expect(refused.status == 500, "\(refused.text)")
            #expect(refused.text.contains("key epoch went back from 2 to 1"), "\(refused.text)")
            #expect((try fixture.call("GET", "/v1/health").json as? [String: Any])?["locked"] as? Bool == true)
            let log = try fixture.running.log
            #expect(log.contains("integrity failure"), "\(log)")
        }
    }

    @Test("the put-back token gets a 500 and nothing; the log and status --verify name it")
    func revokedTokenPutBack() async throws {
        try await ServiceFixture.with { fixture in
            try startWithAlice(fixture)
            let (token, id) = try fixture.tokenWithID(["--allow", "request"])
            let path = fixture.gated.vaultPath
            let kept = try sqlite3(
                path,
                "SELECT 'INSERT INTO app_tokens VALUES (' || quote(id) || ',' || quote(token_hash) || ',' || quote(app) || ',' || quote(permissions) || ',' || quote(consent) || ',' || quote(created_at) || ',' || quote(expires_at) || ',' || quote(mac) || ');' FROM app_tokens WHERE id = '\(id)'"
            )
            #expect(kept.hasPrefix("INSERT INTO app_tokens"), "\(kept)")
            try fixture.gated.expect(["app", "token", "revoke", id], status: 0)
            let revoked = try fixture.call(
                "POST", "/v1/credentials/request", token: token, json: ["domain": "shop.example"])
            #expect(revoked.status == 401, "\(revoked.text)")

            _ = try sqlite3(path, kept)
            let putBack = try fixture.call(
                "POST", "/v1/credentials/request", token: token, json: ["domain": "shop.example"])
            #expect(putBack.status == 500, "\(putBack.text)")
            #expect(!putBack.text.contains("Pw-alice-1"), "\(putBack.text)")
            let log = try fixture.running.log
            #expect(log.contains("is not in its sealed grant set"), "\(log)")

            let verify = try fixture.gated.run(["status", "--verify"])
            #expect(verify.status == 9, "\(verify.stdout)\(verify.stderr)")
            #expect(verify.stdout.contains("grants:       DO NOT MATCH their sealed set"), "\(verify.stdout)")
            // The listing marks the row instead of showing it as live, and revoking it goes through.
            let list = try fixture.gated.expect(["app", "token", "list", GatedFixture.app], status: 0)
            let line = list.stdout.split(separator: "\n").first { $0.hasPrefix(id) }
            #expect(
                line?.hasSuffix(
                    "GRANTS NOTHING (not in the sealed grant set: put back behind swcred's back; revoke it)") == true,
                "\(list.stdout)")
            try fixture.gated.expect(["app", "token", "revoke", id], status: 0)
            #expect(try fixture.gated.run(["status", "--verify"]).status == 0)
        }
    }

    @Test(
        "the sealed state read with a request's token is checked: a seal edited while the service runs refuses the next request"
    )
    func sealEditedUnderRequest() async throws {
        try await ServiceFixture.with { fixture in
            try startWithAlice(fixture)
            let reader = try fixture.token(["--allow", "request"])
            let before = try fixture.call(
                "POST", "/v1/credentials/request", token: reader, json: ["domain": "shop.example"])
            #expect(before.status == 200, "\(before.text)")

            // The seal zeroed: the state read in the token's own statement must be checked, not
            // taken as read.
            _ = try sqlite3(fixture.gated.vaultPath, "UPDATE vault_meta SET state_seal = zeroblob(32);")
            let after = try fixture.call(
                "POST", "/v1/credentials/request", token: reader, json: ["domain": "shop.example"])
            #expect(after.status == 500, "\(after.text)")
            #expect(!after.text.contains("Pw-alice-1"), "\(after.text)")
            let log = try fixture.running.log
            #expect(log.contains("sealed state"), "\(log)")
        }
    }

    @Test("a trigger planted while the service runs puts nothing back: the next write fails closed and verify names it")
    func triggerPlanted() async throws {
        try await ServiceFixture.with { fixture in
            try fixture.start()
            let writer = try fixture.token(["--allow", "add"])
            let (token, id) = try fixture.tokenWithID(["--allow", "request"])
            let path = fixture.gated.vaultPath
            let kept = try sqlite3(
                path,
                "SELECT 'INSERT OR IGNORE INTO app_tokens VALUES (' || quote(id) || ',' || quote(token_hash) || ',' || quote(app) || ',' || quote(permissions) || ',' || quote(consent) || ',' || quote(created_at) || ',' || quote(expires_at) || ',' || quote(mac) || ');' FROM app_tokens WHERE id = '\(id)'"
            )
            try fixture.gated.expect(["app", "token", "revoke", id], status: 0)
            // Every write appends an audit entry: the trigger would put the token back inside the
            // service's next write of grants (here, the verdict it saves for shop.example).
            _ = try sqlite3(path, "CREATE TRIGGER put_back AFTER INSERT ON audit_log BEGIN \(kept) END;")
            let saved = try fixture.call(
                "PUT", "/v1/credentials", token: writer,
                json: ["domain": "shop.example", "account": "alice", "password": "Pw-alice-1"])
            #expect(saved.status == 500, "\(saved.text)")
            let revoked = try fixture.call(
                "POST", "/v1/credentials/request", token: token, json: ["domain": "shop.example"])
            #expect(revoked.status != 200, "\(revoked.text)")
            #expect(!revoked.text.contains("Pw-alice-1"), "\(revoked.text)")
            #expect(try sqlite3(path, "SELECT count(*) FROM app_tokens WHERE id = '\(id)'") == "0\n")
            let log = try fixture.running.log
            #expect(log.contains("integrity failure") && log.contains("put_back"), "\(log)")
            #expect(try fixture.call("GET", "/v1/health").status == 200)

            let verify = try fixture.gated.run(["status", "--verify"])
            #expect(verify.status == 9, "\(verify.stdout)\(verify.stderr)")
            #expect(verify.stderr.contains("put_back"), "\(verify.stderr)")
        }
    }
}
