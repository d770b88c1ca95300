import Foundation
import TestSupport
import Testing

@testable import SharedWebCredentials

@Suite("Credential details: label, notes and otpauth URI, sealed with the password")
struct CredentialDetailsTests {
    typealias Support = VaultTestSupport

    static let details = CredentialDetails(
        label: "Work mail", notes: "line one\nline two, with a comma",
        otpAuth: "otpauth://totp/Example:alice?secret=JBSWY3DP")

    @Test("details round-trip; nil keeps them on an update, given ones replace them")
    func roundTripAndKeep() throws {
        let directory = try TemporaryDirectory()
        let store = try Support.makeVault(in: directory).credentials
        try store.upsert(
            server: "example.com", account: "alice", password: SecureBytes(utf8: "one"), details: Self.details)
        #expect(try store.find(server: "example.com").first?.details == Self.details)

        // An app's password change (no details) keeps the owner's.
        #expect(
            try store.upsert(server: "example.com", account: "alice", password: SecureBytes(utf8: "two")) == .updated)
        #expect(try store.find(server: "example.com").first?.details == Self.details)

        // The same password with other details is an update; with the same details, unchanged.
        let renamed = CredentialDetails(label: "Personal mail", notes: Self.details.notes)
        #expect(
            try store.upsert(
                server: "example.com", account: "alice", password: SecureBytes(utf8: "two"), details: renamed)
                == .updated)
        #expect(
            try store.upsert(
                server: "example.com", account: "alice", password: SecureBytes(utf8: "two"), details: renamed)
                == .unchanged)
        #expect(try store.find(server: "example.com").first?.details == renamed)

        // Details with only empty strings are none.
        #expect(CredentialDetails(label: "", notes: "", otpAuth: "") == .none)
    }

    @Test("a version-1 payload (no notes or otpauth fields) still decodes, with none of them")
    func versionOnePayload() throws {
        let v1 = Self.versionOnePayload(server: "example.com", account: "bob", password: "pw", label: "old label")
        let credential = try #require(CredentialPayload.decode(v1))
        #expect(credential.server == "example.com" && credential.account == "bob")
        #expect(credential.password.exposedString() == "pw")
        #expect(credential.details == CredentialDetails(label: "old label"))
    }

    @Test("a payload of an unknown version, or with trailing bytes, does not decode")
    func unknownVersion() throws {
        let current = CredentialPayload.encode(
            scheme: .https, server: "example.com", port: nil, account: "bob", password: SecureBytes(utf8: "pw"),
            details: Self.details,
            created: Date(), modified: Date())
        var bytes = current.withUnsafeBytes { Array($0) }
        #expect(CredentialPayload.decode(SecureBytes(copying: bytes)) != nil)
        bytes[0] = 4
        #expect(CredentialPayload.decode(SecureBytes(copying: bytes)) == nil)
        bytes[0] = 3
        bytes.append(0)
        #expect(CredentialPayload.decode(SecureBytes(copying: bytes)) == nil)
        bytes.removeLast()
        bytes[bytes.count - 1] = 2
        #expect(CredentialPayload.decode(SecureBytes(copying: bytes)) == nil, "a scheme byte that names none")
    }

    @Test("a version-3 payload keeps its scheme; a version-2 one (written before schemes were kept) is https")
    func schemes() throws {
        let http = CredentialPayload.encode(
            scheme: .http, server: "plain.test", port: 8443, account: "bob", password: SecureBytes(utf8: "pw"),
            details: .none, created: Date(), modified: Date())
        #expect(CredentialPayload.decode(http)?.site.description == "http://plain.test:8443")
        var bytes = http.withUnsafeBytes { Array($0) }
        bytes[0] = 2
        #expect(CredentialPayload.decode(SecureBytes(copying: bytes)) == nil, "version 2 has no scheme byte")
        bytes.removeLast()
        #expect(CredentialPayload.decode(SecureBytes(copying: bytes))?.scheme == .https)
    }

    /// The layout version 1 wrote: server, account, password, label, port, created, modified.
    static func versionOnePayload(server: String, account: String, password: String, label: String) -> SecureBytes {
        var bytes: [UInt8] = [1]
        for field in [server, account, password, label] {
            withUnsafeBytes(of: UInt32(field.utf8.count).littleEndian) { bytes.append(contentsOf: $0) }
            bytes.append(contentsOf: field.utf8)
        }
        withUnsafeBytes(of: UInt32(0).littleEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: Int64(1_700_000_000_000).littleEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: Int64(1_700_000_000_000).littleEndian) { bytes.append(contentsOf: $0) }
        return SecureBytes(copying: bytes)
    }
}
