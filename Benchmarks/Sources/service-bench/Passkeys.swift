import BenchmarkSupport
import Foundation
import SharedWebCredentials

/// A passkey assertion against a password request, both through the service on one keep-alive
/// connection each, taken in turn (issue 26's target: within 1.5x); then the same two calls
/// in-process through the facade, and the signature alone for each algorithm: what an assertion
/// costs beyond a request.
func measurePasskeys(
    service: Target, tokenFile: String, vaultPath: String, app: ApplicationIdentifier, domain: String,
    credentialID: String
) async throws {
    let token = try String(contentsOfFile: tokenFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    let challenge = Base64URL.encode((0..<32).map { _ in UInt8.random(in: 0...255) })
    let getOptions =
        #"{"rpId":"\#(domain)","challenge":"\#(challenge)","allowCredentials":[{"type":"public-key","id":"\#(credentialID)"}]}"#
    let password = postRequest(path: "/v1/credentials/request", token: token, json: #"{"domain":"\#(domain)"}"#)
    let passkey = postRequest(path: "/v1/passkeys/get", token: token, json: getOptions)
    let latency = try alternatingLatency([(service, password), (service, passkey)], blocks: 10, perBlock: 1_000)

    var report = Report(columns: ["measurement", "p50", "p99", "ratio"])
    func add(_ name: String, _ samples: Samples, _ ratio: String) {
        report.add([name, formatNanoseconds(samples.median), formatNanoseconds(samples.percentile(0.99)), ratio])
    }
    let ratio = latency[1].median / latency[0].median
    add("password request through the service, 1 client (10,000 requests)", latency[0], "-")
    add(
        "passkey assertion through the service, 1 client (10,000 requests)", latency[1],
        String(format: "%.2fx the password request %@", ratio, ratio <= 1.5 ? "(ok, <= 1.5x)" : "(OVER 1.5x)"))

    guard let passphrase = ProcessInfo.processInfo.environment["SWCRED_PASSPHRASE"] else {
        throw CommandFailure(description: "set SWCRED_PASSPHRASE")
    }
    let vault = try Vault.open(at: vaultPath, secret: .passphrase(SecureBytes(utf8: passphrase)))
    let facade = SharedWebCredentials(app: app, vault: vault, verifier: nil)
    let target = try DomainTarget(domain)
    let options = Array(getOptions.utf8)
    var request = Samples()
    var assertion = Samples()
    for _ in 0..<2_000 {
        var start = ContinuousClock.now
        _ = try await facade.request(domain: target)
        request.append(ContinuousClock.now - start)
        start = ContinuousClock.now
        _ = try await facade.getPasskey(optionsJSON: options) { .standingConsent }
        assertion.append(ContinuousClock.now - start)
    }
    add("in-process `SharedWebCredentials.request` (2,000 runs)", request, "-")
    add(
        "in-process `SharedWebCredentials.getPasskey` (2,000 runs)", assertion,
        String(format: "%.2fx the request", assertion.median / request.median))

    // authenticatorData (37 bytes) followed by SHA-256 of the client data: what an assertion signs.
    let message = (0..<69).map { _ in UInt8.random(in: 0...255) }
    for algorithm in PasskeyAlgorithm.allCases {
        let key = PasskeyPrivateKey.generate(algorithm)
        let signing = try measure(count: 2_000) { _ = try key.signature(for: message) }
        add(
            "the signature alone, \(algorithm) (2,000 runs)", signing,
            String(format: "%.0f%% of the in-process assertion", 100 * signing.median / assertion.median))
    }
    print(report.markdown())
}
