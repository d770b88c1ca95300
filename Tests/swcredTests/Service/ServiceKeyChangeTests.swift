import Foundation
import TestSupport
import Testing

/// A change of the vault's passphrase or key by another process ends the service's unlock: it
/// locks, every owner session of the earlier unlock ends, and the owner unlocks it again.
@Suite("swcred serve: a passphrase or key changed under it", .serialized)
struct ServiceKeyChangeTests {
    static let newPassphrase = "a new passphrase: velvet comet harbor quill 38"

    @Test(
        "passwd or rekey by another process locks the service and ends its owner sessions; the new passphrase unlocks it",
        arguments: [["passwd"], ["rekey"]])
    func changeUnderTheService(command: [String]) async throws {
        try await ServiceFixture.with { fixture in
            try fixture.start()
            let token = try fixture.token(["--allow", "request,add"])
            let saved = try fixture.call(
                "PUT", "/v1/credentials", token: token,
                json: ["domain": "shop.example", "account": "alice", "password": "Pw-alice-1"])
            #expect(saved.status == 200, "\(saved.text)")
            let session = try fixture.ownerSession()
            #expect(try fixture.call("GET", "/v1/consent/next", token: session).status == 204)

            var environment = fixture.gated.environment
            environment["SWCRED_NEW_PASSPHRASE"] = Self.newPassphrase
            let changed = try SwcredProcess.run(command, environment: environment)
            #expect(changed.status == 0, "\(changed.stderr)")

            // The service locks by itself, with no request to notice the change.
            var locked = false
            for _ in 0..<50 where !locked {
                locked = (try fixture.call("GET", "/v1/health").json as? [String: Any])?["locked"] as? Bool == true
                if !locked { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(locked, "the service still holds the earlier unlock 5 s after \(command)")
            let refused = try fixture.call("GET", "/v1/consent/next", token: session)
            #expect(refused.status == 423, "the old owner session after \(command): \(refused.text)")
            let request = try fixture.call(
                "POST", "/v1/credentials/request", token: token, json: ["domain": "shop.example"])
            #expect(request.status == 423 || request.status == 401, "\(request.text)")

            let passphrase = command == ["passwd"] ? Self.newPassphrase : fixture.gated.passphrase
            let old = try fixture.call("POST", "/v1/unlock", json: ["passphrase": "not it"])
            #expect(old.status == 423)
            let unlocked = try fixture.call("POST", "/v1/unlock", json: ["passphrase": passphrase])
            #expect(unlocked.status == 200, "\(unlocked.text)")
            #expect(
                try fixture.call("GET", "/v1/consent/next", token: session).status == 401,
                "a session of the earlier unlock stays ended")
            let log = try fixture.running.log
            #expect(log.contains("the passphrase or the vault key was changed by another process"), "\(log)")
            // The service's own lock is in the audit log, as the owner's is: written at the next
            // unlock, since the keys it held no longer seal an entry.
            environment["SWCRED_PASSPHRASE"] = passphrase
            let audit = try SwcredProcess.run(["audit", "--operation", "lock", "--json"], environment: environment)
            let locks = try #require(try JSONSerialization.jsonObject(with: audit.stdoutData) as? [[String: Any]])
            #expect(
                locks.contains { ($0["detail"] as? String)?.contains("changed by another process") == true },
                "\(command): \(audit.stdout)\(audit.stderr)")
        }
    }
}
