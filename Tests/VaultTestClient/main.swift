// A second process for the vault tests: writes and reads credentials in a vault that a test (or
// another copy of this program) has open at the same time. Not part of the product.
//
//   VaultTestClient write VAULT PREFIX COUNT    upserts COUNT credentials, one transaction each
//   VaultTestClient read VAULT SERVER ACCOUNT   prints the password
//   VaultTestClient count VAULT                 prints the number of credentials
//   VaultTestClient churn VAULT ACCOUNTS        adds and updates credentials until killed (see Churn.swift)
//   VaultTestClient load VAULT SECONDS OUT      mixed lookups and upserts for SECONDS (see Load.swift)
//   VaultTestClient owner-proof VAULT CHALLENGE prints the owner proof for a service challenge
//                                               (base64url), for Scripts/api-contract
//
// The secret comes from SWCRED_PASSPHRASE, or SWCRED_KEY_FILE for key-file vaults.
import Foundation
import SharedWebCredentials

/// The exit code `swcred` would use for the same failure.
func exitCode(for code: SharedWebCredentialsError.Code) -> Int32 {
    switch code {
    case .vaultLocked: 7
    case .vaultNotFound, .vaultExists: 8
    case .integrityFailure: 9
    case .vaultBusy: 11
    case .itemNotFound: 5
    case .storageFailure: 13
    default: 1
    }
}

func run(_ arguments: [String]) throws {
    let environment = ProcessInfo.processInfo.environment
    guard arguments.count >= 2 else { throw SharedWebCredentialsError(.invalidInput, "usage: see main.swift") }
    let secret: VaultSecret =
        if let keyFile = environment["SWCRED_KEY_FILE"] {
            .key(try KeyFile.read(at: keyFile))
        } else {
            .passphrase(SecureBytes(utf8: environment["SWCRED_PASSPHRASE"] ?? ""))
        }
    let vault = try Vault.open(at: arguments[1], secret: secret)
    switch (arguments[0], arguments.count) {
    case ("write", 4):
        guard let count = Int(arguments[3]) else { throw SharedWebCredentialsError(.invalidInput, "COUNT") }
        for index in 0..<count {
            try vault.credentials.upsert(
                server: "stress.example", account: "\(arguments[2])-\(index)",
                password: SecureBytes(utf8: "secret-\(arguments[2])-\(index)"))
        }
    case ("read", 4):
        guard let credential = try vault.credentials.find(server: arguments[2], account: arguments[3]).first else {
            throw SharedWebCredentialsError(.itemNotFound, "no matching items found")
        }
        print(credential.password.exposedString())
    case ("owner-proof", 3):
        guard let challenge = OwnerProof.bytes(fromText: arguments[2]) else {
            throw SharedWebCredentialsError(.invalidInput, "CHALLENGE is not base64url")
        }
        print(OwnerProof.text(vault.ownerProof(answering: challenge)))
    case ("count", 2):
        print(try vault.credentials.count())
    case ("churn", 3):
        guard let accounts = Int(arguments[2]), accounts > 0 else {
            throw SharedWebCredentialsError(.invalidInput, "ACCOUNTS")
        }
        try Churn(vault: vault, accounts: accounts).run()
    case ("load", 4):
        guard let seconds = Double(arguments[2]), seconds > 0 else {
            throw SharedWebCredentialsError(.invalidInput, "SECONDS")
        }
        try Load(vault: vault, seconds: seconds).run(samplesPath: arguments[3])
    default:
        throw SharedWebCredentialsError(.invalidInput, "usage: see Tests/VaultTestClient/main.swift")
    }
}

do {
    try run(Array(CommandLine.arguments.dropFirst()))
} catch let error as SharedWebCredentialsError {
    FileHandle.standardError.write(Data("VaultTestClient: \(error.message)\n".utf8))
    exit(exitCode(for: error.code))
}
