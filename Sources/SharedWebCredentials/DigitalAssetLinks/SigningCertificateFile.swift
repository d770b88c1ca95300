import Crypto
import Foundation
import X509

/// Reads the SHA-256 fingerprints of an Android app's signing certificates from a certificate
/// file: PEM (every `CERTIFICATE` block) or one DER-encoded X.509 certificate. The fingerprint is
/// the SHA-256 of the certificate's DER encoding, as `keytool -printcert` and
/// `openssl x509 -fingerprint -sha256` print it.
public enum SigningCertificateFile {
    private static let begin = "-----BEGIN CERTIFICATE-----"
    private static let end = "-----END CERTIFICATE-----"

    /// The fingerprints of the certificates in the file at `path`, in file order.
    /// Throws `invalidInput` naming the file and the problem.
    public static func fingerprints(atPath path: String) throws -> [CertificateFingerprint] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SharedWebCredentialsError(.invalidInput, "cannot read the certificate file \(path): check the path")
        }
        return try fingerprints(of: Array(data), source: path)
    }

    /// The fingerprints of the certificates in `bytes` (PEM or DER), in order.
    public static func fingerprints(of bytes: [UInt8], source: String) throws -> [CertificateFingerprint] {
        func invalid(_ problem: String) -> SharedWebCredentialsError {
            SharedWebCredentialsError(
                .invalidInput,
                "\(source): \(problem); give the app's signing certificate as PEM or DER X.509 (for example from `keytool -exportcert -rfc`)"
            )
        }
        let ders: [[UInt8]]
        if let text = String(validating: bytes, as: UTF8.self), text.contains("-----BEGIN ") {
            ders = try pemBlocks(text, invalid: invalid)
        } else {
            ders = [bytes]
        }
        return try ders.enumerated().map { index, der in
            do {
                _ = try Certificate(derEncoded: der)
            } catch {
                throw invalid(
                    ders.count == 1
                        ? "not an X.509 certificate"
                        : "certificate \(index + 1) of \(ders.count) is not an X.509 certificate")
            }
            return try CertificateFingerprint(bytes: Array(SHA256.hash(data: der)))
        }
    }

    /// The DER bytes of every `CERTIFICATE` block of a PEM text.
    private static func pemBlocks(
        _ text: String, invalid: (String) -> SharedWebCredentialsError
    ) throws -> [[UInt8]] {
        var blocks: [[UInt8]] = []
        var rest = Substring(text)
        while let start = rest.range(of: begin) {
            guard let stop = rest.range(of: end, range: start.upperBound..<rest.endIndex) else {
                throw invalid("a PEM certificate block has no \(end) line")
            }
            let base64 = rest[start.upperBound..<stop.lowerBound].filter { !$0.isWhitespace }
            guard let der = Data(base64Encoded: String(base64)) else {
                throw invalid("PEM certificate block \(blocks.count + 1) is not valid base64")
            }
            blocks.append(Array(der))
            rest = rest[stop.upperBound...]
        }
        guard !blocks.isEmpty else { throw invalid("the PEM file holds no CERTIFICATE block (a key or a request?)") }
        return blocks
    }
}
