import Crypto
import Foundation
import NIOSSL
import X509

/// A certificate and its private key, ready to be served by ``TestHTTPSServer``.
public struct TestIdentity: Sendable {
    /// The chain the server presents, leaf first.
    public let chain: [Certificate]
    /// The leaf's private key in PEM form.
    public let privateKeyPEM: String

    /// The chain as NIOSSL certificates.
    public func nioSSLChain() throws -> [NIOSSLCertificate] {
        try chain.map { try NIOSSLCertificate(bytes: Array($0.serializeAsPEM().pemString.utf8), format: .pem) }
    }

    /// The key as a NIOSSL private key.
    public func nioSSLKey() throws -> NIOSSLPrivateKey {
        try NIOSSLPrivateKey(bytes: Array(privateKeyPEM.utf8), format: .pem)
    }

    /// Writes the chain and the key as PEM files (the key 0600) for a server that reads files;
    /// returns their paths.
    public func writePEM(into directory: TemporaryDirectory, name: String) throws -> (certificate: String, key: String)
    {
        let certificate = directory.path("\(name).pem")
        let key = directory.path("\(name).key")
        try Data(try chain.map { try $0.serializeAsPEM().pemString + "\n" }.joined().utf8)
            .write(to: URL(fileURLWithPath: certificate))
        FileManager.default.createFile(
            atPath: key, contents: Data(privateKeyPEM.utf8), attributes: [.posixPermissions: 0o600])
        return (certificate, key)
    }
}

/// A certificate authority made at test time, for TLS tests on loopback: issue leaf certificates
/// for any host names (valid, expired, not yet valid), make self-signed ones, and write the CA's
/// certificate to a PEM file to pass as `--ca-file`.
public struct TestCertificateAuthority: Sendable {
    /// The CA's self-signed certificate (the trust root).
    public let certificate: Certificate
    private let keyPEM: String

    /// Creates a fresh CA whose certificate is valid from an hour ago for a year.
    public init(name: String = "swcred test CA") throws {
        let key = P256.Signing.PrivateKey()
        keyPEM = key.pemRepresentation
        let subject = try DistinguishedName { CommonName(name) }
        let now = Date()
        certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: now - 3_600, notValidAfter: now + 365 * 86_400,
            issuer: subject, subject: subject, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            },
            issuerPrivateKey: Certificate.PrivateKey(key))
    }

    /// The CA certificate in PEM form.
    public var pem: String {
        get throws { try certificate.serializeAsPEM().pemString }
    }

    /// Writes the CA certificate as PEM into `directory` and returns the file's path.
    public func writePEM(into directory: TemporaryDirectory, name: String = "ca.pem") throws -> String {
        let path = directory.path(name)
        try pem.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Issues a server certificate for `hosts` (DNS names or `*.` wildcards).
    ///
    /// - Parameters:
    ///   - validFrom: the start of validity (default an hour ago).
    ///   - validUntil: the end of validity (default in 30 days); pass a past date for an expired one.
    public func issue(
        for hosts: [String], validFrom: Date = Date() - 3_600, validUntil: Date = Date() + 30 * 86_400
    ) throws -> TestIdentity {
        let leafKey = P256.Signing.PrivateKey()
        let leaf = try Self.leafCertificate(
            hosts: hosts, key: leafKey, issuer: certificate.subject,
            issuerKey: try P256.Signing.PrivateKey(pemRepresentation: keyPEM), validFrom: validFrom,
            validUntil: validUntil)
        return TestIdentity(chain: [leaf], privateKeyPEM: leafKey.pemRepresentation)
    }

    /// Makes a self-signed server certificate for `hosts` (issued by no CA).
    public static func selfSigned(for hosts: [String]) throws -> TestIdentity {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName(hosts.first ?? "self-signed") }
        let leaf = try leafCertificate(
            hosts: hosts, key: key, issuer: name, issuerKey: key, validFrom: Date() - 3_600,
            validUntil: Date() + 30 * 86_400)
        return TestIdentity(chain: [leaf], privateKeyPEM: key.pemRepresentation)
    }

    private static func leafCertificate(
        hosts: [String], key: P256.Signing.PrivateKey, issuer: DistinguishedName, issuerKey: P256.Signing.PrivateKey,
        validFrom: Date, validUntil: Date
    ) throws -> Certificate {
        let subject = try DistinguishedName { CommonName(hosts.first ?? "test") }
        let names: [GeneralName] = hosts.map { .dnsName($0) }
        return try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: validFrom, notValidAfter: validUntil,
            issuer: issuer, subject: subject, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames(names)
            },
            issuerPrivateKey: Certificate.PrivateKey(issuerKey))
    }
}
