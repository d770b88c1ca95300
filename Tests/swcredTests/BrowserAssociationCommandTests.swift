import Foundation
import SharedWebCredentials
import TestSupport
import Testing

/// `swcred browser list|set|revoke` on the binary: the owner's view of the browsers approved.
@Suite("swcred browser list, set and revoke")
struct BrowserAssociationCommandTests {
    @Test("list shows an approved browser; set changes http and consent; revoke ends it; bad input is named")
    func ownerCommands() async throws {
        try await GatedFixture.with { gated in
            let empty = try gated.expect(["browser", "list"], status: 0)
            #expect(empty.stdout.contains("no browser is associated"))
            let vault = try Vault.open(at: gated.vaultPath, secret: .passphrase(SecureBytes(utf8: gated.passphrase)))
            try vault.browsers.add(id: "Work Firefox", identificationKey: [UInt8](repeating: 3, count: 32))

            let listed = try gated.expect(["browser", "list", "--json"], status: 0)
            let json = try #require(
                try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
            #expect(json.first?["name"] as? String == "Work Firefox")
            #expect(json.first?["allowsHTTP"] as? Bool == false && json.first?["consent"] as? String == "none")

            let set = try gated.expect(
                ["browser", "set", "Work Firefox", "--consent", "ask", "--http", "allow"], status: 0)
            #expect(set.stdout.contains("Work Firefox: http allowed, consent ask"), "\(set.stdout)")
            let changed = try #require(
                try await vault.browsers.find(id: "Work Firefox", identifiedBy: [UInt8](repeating: 3, count: 32)))
            #expect(changed.allowsHTTP && changed.consent == .ask)

            let nothing = try gated.expect(["browser", "set", "Work Firefox"], status: 2)
            #expect(nothing.stderr.contains("give --consent ask|none or --http allow|refuse"), "\(nothing.stderr)")
            let badConsent = try gated.expect(["browser", "set", "Work Firefox", "--consent", "maybe"], status: 2)
            #expect(badConsent.stderr.contains("--consent is ask or none, not \"maybe\""), "\(badConsent.stderr)")
            let unknown = try gated.expect(["browser", "set", "Nobody", "--http", "refuse"], status: 5)
            #expect(unknown.stderr.contains("no browser is named \"Nobody\""), "\(unknown.stderr)")

            try gated.expect(["browser", "revoke", "Work Firefox"], status: 0)
            let again = try gated.expect(["browser", "revoke", "Work Firefox"], status: 5)
            #expect(again.stderr.contains("no browser is named"), "\(again.stderr)")
            let audit = try gated.expect(["audit", "--json"], status: 0)
            #expect(audit.stdout.contains("browser-associate") && audit.stdout.contains("browser-revoke"))
        }
    }

    @Test("set changes one setting of one browser and keeps the other setting, and every other browser, as it was")
    func setChangesOneSetting() async throws {
        try await GatedFixture.with { gated in
            let vault = try Vault.open(at: gated.vaultPath, secret: .passphrase(SecureBytes(utf8: gated.passphrase)))
            let work = [UInt8](repeating: 3, count: 32)
            let home = [UInt8](repeating: 4, count: 32)
            try vault.browsers.add(id: "Work Firefox", identificationKey: work, consent: .ask)
            try vault.browsers.add(id: "Home Chromium", identificationKey: home, allowsHTTP: true)
            func settings(_ name: String, _ key: [UInt8]) async throws -> (http: Bool, consent: ConsentMode) {
                let found = try #require(try await vault.browsers.find(id: name, identifiedBy: key))
                return (found.allowsHTTP, found.consent)
            }

            try gated.expect(["browser", "set", "Work Firefox", "--http", "allow"], status: 0)
            var changed = try await settings("Work Firefox", work)
            #expect(changed.http && changed.consent == .ask, "--http alone keeps consent ask")
            var other = try await settings("Home Chromium", home)
            #expect(other.http && other.consent == .none, "the other browser is untouched")

            try gated.expect(["browser", "set", "Work Firefox", "--consent", "none"], status: 0)
            changed = try await settings("Work Firefox", work)
            #expect(changed.http && changed.consent == .none, "--consent alone keeps http allowed")

            try gated.expect(["browser", "set", "Home Chromium", "--consent", "ask"], status: 0)
            other = try await settings("Home Chromium", home)
            #expect(other.http && other.consent == .ask, "--consent alone keeps the other browser's http allowed")
            changed = try await settings("Work Firefox", work)
            #expect(changed.http && changed.consent == .none, "a change of one browser leaves the other as it was")
        }
    }
}
