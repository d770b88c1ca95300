import Foundation
import SharedWebCredentialsTransfer
import TestSupport
import Testing

@testable import SharedWebCredentials

/// Export to each open format, and round trips: import(export(vault)) gives the same credentials.
@Suite("export and round trips")
struct ExportTests {
    /// Credentials with everything a format may carry: labels, notes with commas, quotes and line
    /// breaks, TOTP URIs, a port, a non-ASCII account, one without details.
    static func fill(_ vault: Vault) throws {
        let created = Date(timeIntervalSince1970: 1_600_000_000)
        let modified = Date(timeIntervalSince1970: 1_700_000_000)
        try vault.credentials.batch { batch in
            try batch.upsert(
                server: "shop.example", port: 8443, account: "alice@example.com",
                password: SecureBytes(utf8: "Trip, \"quoted\"\nPw-1"),
                details: CredentialDetails(
                    label: "Shop, Inc.", notes: "line one\nline \"two\"",
                    otpAuth:
                        "otpauth://totp/Shop:alice?secret=JBSWY3DPEHPK3PXP&issuer=Shop&algorithm=SHA1&digits=6&period=30"
                ),
                created: created, modified: modified)
            try batch.upsert(
                server: "xn--bcher-kva.example", account: "jürgen", password: SecureBytes(utf8: "Grüße-Pw-2"),
                details: CredentialDetails(label: "Bücher"), created: created, modified: modified)
            try batch.upsert(
                server: "plain.example", account: "bob", password: SecureBytes(utf8: " spaced Pw-3 "),
                created: created, modified: modified)
        }
    }

    /// Every credential as a comparable line, with the fields `format` carries.
    static func contents(_ vault: Vault, format: ExportFormat) throws -> [String] {
        var lines: [String] = []
        try vault.credentials.forEach { credential in
            var fields = [
                credential.server, "\(credential.port ?? 443)", credential.account, credential.passwordText,
                credential.details.label ?? "-", credential.details.notes ?? "-",
            ]
            if !format.lostFields.contains("one-time-password URIs") {
                fields.append(credential.details.otpAuth ?? "-")
            }
            if format.lostFields.isEmpty {
                fields += [
                    "\(credential.created.timeIntervalSince1970)", "\(credential.modified.timeIntervalSince1970)",
                ]
            }
            lines.append(fields.joined(separator: "|"))
        }
        return lines.sorted()
    }

    @Test("a round trip through each export format changes nothing it can carry", arguments: ExportFormat.allCases)
    func roundTrip(format: ExportFormat) throws {
        let directory = try TemporaryDirectory()
        let source = try VaultTestSupport.makeVault(in: directory, name: "source.sqlite")
        try Self.fill(source)
        let path = directory.path("export.\(format.rawValue)")
        let descriptor = try CredentialExport.createFile(at: path)
        #expect(try CredentialExport(format: format).write(source, to: descriptor).credentials == 3)
        close(descriptor)

        let target = try VaultTestSupport.makeVault(in: directory, name: "target.sqlite")
        let expected: ImportFormat =
            switch format {
            case .appleCSV: .appleCSV
            case .chromeCSV: .chromeCSV
            case .bitwardenJSON: .bitwardenJSON
            case .cxf: .cxf
            }
        let summary = try CredentialImport(path: path, format: nil, policy: .skip, skipInvalid: false)
            .run(into: target.credentials) { _ in true }
        #expect(summary.format == expected && summary.added == 3 && summary.skipped.isEmpty)
        #expect(try Self.contents(target, format: format) == Self.contents(source, format: format))
        // Each side's audit log records what the owner did: one export, one import.
        #expect(try source.audit.entries(operation: .export).map(\.event.actor) == [.owner])
        #expect(try target.audit.entries(operation: .import).map(\.event.actor) == [.owner])
        #expect(try source.audit.verify().isIntact && target.audit.verify().isIntact)
        if format == .chromeCSV {
            let shop = try #require(try target.credentials.find(server: "shop.example", port: 8443).first)
            #expect(shop.details.otpAuth == nil, "Chrome CSV has no OTP column: lost, as the warning says")
        }
    }

    @Test("an export whose audit entry cannot be written writes no password")
    func exportFailsClosed() throws {
        let directory = try TemporaryDirectory()
        let source = try VaultTestSupport.makeVault(in: directory, name: "source.sqlite")
        try Self.fill(source)
        try source.database.inDatabase { db in try db.execute(sql: "PRAGMA query_only = ON") }
        let path = directory.path("export.csv")
        let descriptor = try CredentialExport.createFile(at: path)
        defer { close(descriptor) }
        #expect(throws: SharedWebCredentialsError.self) {
            try CredentialExport(format: .appleCSV).write(source, to: descriptor)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)).isEmpty, "not even the header was written")
        try source.database.inDatabase { db in try db.execute(sql: "PRAGMA query_only = OFF") }
        #expect(try source.audit.entries(operation: .export).isEmpty)
    }

    @Test("an export file is created 0600 whatever the umask, and an existing file is never overwritten")
    func createFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("out.csv")
        let previous = umask(0)
        defer { umask(previous) }
        let descriptor = try CredentialExport.createFile(at: path)
        close(descriptor)
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: SharedWebCredentialsError.self) { try CredentialExport.createFile(at: path) }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "keep me")
    }
}
