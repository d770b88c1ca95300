// One gated request, many times in a row, in-process: what `Scripts/bench instructions` runs
// under callgrind, which counts instructions, not seconds. Two runs of different lengths on the
// same vault; their difference divided by the difference in requests is the instructions of one
// request (with its audit entry), the same on a busy machine as on a quiet one.
//
// Usage: request-loop create DIRECTORY CREDENTIALS   (a vault with a key file, the app approved)
//        request-loop run DIRECTORY REQUESTS
//        request-loop run-domainless DIRECTORY REQUESTS  (a request without a domain: every one of
//                                       the app's credentials, on a vault from create-domainless)
//        request-loop create-domainless DIRECTORY CREDENTIALS  (all of them on the app's domain)
import Foundation
import SharedWebCredentials

let app = try ApplicationIdentifier("ABCDE12345.com.example.app")
let domain = "shop.example"
let arguments = CommandLine.arguments
guard arguments.count == 4, let count = Int(arguments[3]), count > 0 else {
    FileHandle.standardError.write(
        Data(
            "usage: request-loop create|create-domainless DIRECTORY CREDENTIALS | request-loop run|run-domainless DIRECTORY REQUESTS\n"
                .utf8))
    exit(64)
}
let path = arguments[2] + "/vault.sqlite"
let keyPath = arguments[2] + "/vault.key"

switch arguments[1] {
case "create", "create-domainless":
    let domainless = arguments[1] == "create-domainless"
    let vault = try Vault.create(at: path, protection: .newKeyFile(path: keyPath))
    let entry = "webcredentials:\(domain)"
    try vault.apps.register(app, entitlements: Entitlements(strings: [entry]), at: Date())
    let now = Date()
    try vault.associations.save(
        AssociationRecord(
            service: .webcredentials, app: app,
            domain: AssociationStore.domainKey(for: try AssociatedDomainEntry(entry)), verdict: .approved,
            checkedAt: now, nextCheck: now + 30 * 86_400, lastError: nil, retryCount: 0, documentDigest: nil,
            approvedAt: now))
    try vault.credentials.batch { batch in
        try batch.upsert(server: domain, account: "user7", password: SecureBytes(utf8: "pw-7-Xq7#vL9p"))
        for index in 1..<count {
            try batch.upsert(
                server: domainless ? domain : "host\(index).example", account: "user\(index)@example.com",
                password: SecureBytes(utf8: "pw-\(index)-Xq7#vL9p"))
        }
    }
case "run":
    let vault = try Vault.open(at: path, secret: .key(try KeyFile.read(at: keyPath)))
    let facade = SharedWebCredentials(app: app, vault: vault, verifier: nil)
    let target = try DomainTarget(domain)
    for _ in 0..<count {
        let released = try await facade.request(domain: target, account: "user7")
        precondition(released.count == 1, "released \(released.count) credentials")
    }
case "run-domainless":
    let vault = try Vault.open(at: path, secret: .key(try KeyFile.read(at: keyPath)))
    let facade = SharedWebCredentials(app: app, vault: vault, verifier: nil)
    for _ in 0..<count {
        let released = try await facade.request()
        precondition(released.count > 1, "released \(released.count) credentials")
    }
default:
    FileHandle.standardError.write(Data("request-loop: unknown command \(arguments[1])\n".utf8))
    exit(64)
}
