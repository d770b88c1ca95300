import Foundation
import SharedWebCredentials
import TestSupport
import Testing

/// Fingerprints read from certificate files, checked against `openssl x509 -fingerprint -sha256`.
@Suite("signing-certificate files")
struct SigningCertificateFileTests {
    let directory: TemporaryDirectory
    let ca: TestCertificateAuthority
    init() throws {
        directory = try TemporaryDirectory()
        ca = try TestCertificateAuthority()
    }

    /// What `openssl x509` prints as the SHA-256 fingerprint of the first certificate in `path`.
    static func opensslFingerprint(_ path: String, der: Bool = false) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments =
            ["x509", "-in", path, "-noout", "-fingerprint", "-sha256"] + (der ? ["-inform", "DER"] : [])
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return String(try #require(output.split(separator: "=").last)).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("a PEM file's certificates give openssl's fingerprints, in order; a DER file its one")
    func pemAndDER() throws {
        let leaf = try ca.issue(for: ["signing.example"]).writePEM(into: directory, name: "leaf").certificate
        let bundle = directory.path("bundle.pem")
        try Data((ca.pem + "\n" + String(contentsOfFile: leaf, encoding: .utf8)).utf8).write(
            to: URL(fileURLWithPath: bundle))
        let fingerprints = try SigningCertificateFile.fingerprints(atPath: bundle).map(\.description)
        #expect(fingerprints.count == 2)
        #expect(fingerprints[1] == (try Self.opensslFingerprint(leaf)))
        #expect(fingerprints[0] == (try Self.opensslFingerprint(try ca.writePEM(into: directory))))

        let der = directory.path("leaf.der")
        let convert = Process()
        convert.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        convert.arguments = ["x509", "-in", leaf, "-outform", "DER", "-out", der]
        try convert.run()
        convert.waitUntilExit()
        #expect(try SigningCertificateFile.fingerprints(atPath: der).map(\.description) == [fingerprints[1]])
        #expect(fingerprints[1] == (try Self.opensslFingerprint(der, der: true)))
    }

    @Test(
        "files that hold no certificate are refused with the problem",
        arguments: [
            ("-----BEGIN PRIVATE KEY-----\nMIGHAgEA\n-----END PRIVATE KEY-----\n", "no CERTIFICATE block"),
            ("-----BEGIN CERTIFICATE-----\nMIIB\n", "no -----END CERTIFICATE----- line"),
            ("-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n", "not valid base64"),
            ("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n", "not an X.509 certificate"),
            ("just some text", "not an X.509 certificate"),
        ])
    func refused(contents: String, problem: String) {
        #expect {
            try SigningCertificateFile.fingerprints(of: Array(contents.utf8), source: "cert.pem")
        } throws: { error in
            let error = error as? SharedWebCredentialsError
            return error?.code == .invalidInput && error?.message.contains(problem) == true
                && error?.message.contains("cert.pem") == true
        }
    }

    @Test("a missing file is refused, naming it")
    func missing() {
        #expect {
            try SigningCertificateFile.fingerprints(atPath: directory.path("absent.pem"))
        } throws: { error in
            (error as? SharedWebCredentialsError)?.message.contains("absent.pem") == true
        }
    }
}
