import ArgumentParser
import Foundation
import SharedWebCredentials

/// `swcred app ...`: register apps and their associated-domains entitlements.
struct AppCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app",
        abstract: "Register, list, show and remove apps (the analogue of installing them).",
        subcommands: [
            AppAddCommand.self, AppListCommand.self, AppShowCommand.self, AppRemoveCommand.self, AppTokenCommand.self,
        ])
}

/// `swcred app add APPID (--entitlements FILE | --domain ENTRY ...)`, or for an Android app
/// `swcred app add android:PACKAGE --cert-sha256 FP ... --domain HOST ...`.
struct AppAddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Register an app with its associated-domains entitlement (again: replace it).",
        discussion: """
            An Android app is android:PACKAGE, registered with the SHA-256 fingerprints of its \
            signing certificates (--cert-sha256, colon-separated hex, either case; or --cert-file, \
            a PEM or DER certificate) and its domains \
            (--domain HOST[:PORT]), the analogue of its manifest's asset_statements; each site's \
            /.well-known/assetlinks.json must grant it delegate_permission/common.get_login_creds.
            """)

    @Argument(
        help: ArgumentHelp(
            "The application identifier, e.g. ABCDE12345.com.example.app, or android:com.example.app.",
            valueName: "APPID"))
    var app: String

    @Option(help: ArgumentHelp("An Xcode .entitlements property list.", valueName: "FILE"))
    var entitlements: String?

    @Option(
        name: .customLong("domain"),
        help: ArgumentHelp(
            "An entry such as webcredentials:example.com (an Android app: the host, example.com). Repeatable.",
            valueName: "ENTRY"))
    var domains: [String] = []

    @Option(
        name: .customLong("cert-sha256"),
        help: ArgumentHelp(
            "An Android app's signing-certificate SHA-256 fingerprint, AA:BB:...:FF. Repeatable.", valueName: "FP"))
    var certificateFingerprints: [String] = []

    @Option(
        name: .customLong("cert-file"),
        help: ArgumentHelp(
            "An Android app's signing certificate (PEM or DER X.509): its SHA-256 fingerprint is used. Repeatable.",
            valueName: "FILE"))
    var certificateFiles: [String] = []

    @OptionGroup var vault: VaultOptions

    func run() throws {
        var app = try ApplicationIdentifier(app)
        let parsed: Entitlements
        switch (app.platform, entitlements, domains.isEmpty) {
        case (.android, nil, false):
            var fingerprints: [CertificateFingerprint] = []
            let given =
                try certificateFingerprints.map(CertificateFingerprint.init)
                + certificateFiles.flatMap(SigningCertificateFile.fingerprints(atPath:))
            for fingerprint in given where !fingerprints.contains(fingerprint) { fingerprints.append(fingerprint) }
            app = app.signed(by: fingerprints)
            parsed = try Entitlements(androidDomains: domains)
        case (.android, _, _):
            throw SharedWebCredentialsError(
                .invalidInput,
                "give an Android app's domains as one or more --domain HOST (an .entitlements file is Apple's)")
        case (.apple, _, _) where !certificateFingerprints.isEmpty || !certificateFiles.isEmpty:
            throw SharedWebCredentialsError(
                .invalidInput,
                "--cert-sha256 and --cert-file are for Android apps (android:PACKAGE); \(app) is an Apple app")
        case (.apple, let file?, true): parsed = try Entitlements(plistAt: file)
        case (.apple, nil, false): parsed = try Entitlements(strings: domains)
        case (.apple, _, _):
            throw SharedWebCredentialsError(
                .invalidInput, "give either --entitlements FILE or one or more --domain ENTRY")
        }
        let opened = try vault.openVault()
        try opened.apps.register(app, entitlements: parsed, at: Date())
        for warning in parsed.warnings { Terminal.printWarning(warning) }
        TextOutput.line("registered \(app) with \(parsed.entries.count) entr\(parsed.entries.count == 1 ? "y" : "ies")")
    }
}

/// `swcred app list`.
struct AppListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List registered apps.")

    @OptionGroup var vault: VaultOptions

    @Flag(help: "Print JSON.")
    var json = false

    func run() throws {
        let apps = try vault.openVault().apps.all()
        if json {
            try printJSON(apps.map(AppJSON.init))
        } else {
            for app in apps { TextOutput.line("\(app.identifier)\t\(app.entitlements.entries.count) entries") }
        }
    }
}

/// `swcred app show APPID`.
struct AppShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Show an app's entitlement entries and stored verdicts.")

    @Argument(help: ArgumentHelp("The application identifier.", valueName: "APPID"))
    var app: String

    @OptionGroup var vault: VaultOptions

    @Flag(help: "Print JSON.")
    var json = false

    func run() throws {
        let app = try ApplicationIdentifier(app)
        let opened = try vault.openVault()
        let registered = try opened.apps.require(app)
        let records = try opened.associations.all(app: app)
        if json {
            try printJSON(AppJSON(registered))
            return
        }
        TextOutput.line("app:          \(registered.identifier)")
        TextOutput.line("registered:   \(registered.registeredAt.formatted(.iso8601))")
        for entry in registered.entitlements.entries { TextOutput.line("entitlement:  \(entry)") }
        for fingerprint in registered.identifier.signingCertificates { TextOutput.line("cert-sha256:  \(fingerprint)") }
        for warning in registered.entitlements.warnings { TextOutput.line("warning:      \(warning)") }
        print(AssociationTable.text(records))
    }
}

/// `swcred app remove APPID`.
struct AppRemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Remove an app, its stored verdicts and its tokens (its credentials stay).")

    @Argument(help: ArgumentHelp("The application identifier.", valueName: "APPID"))
    var app: String

    @OptionGroup var vault: VaultOptions

    func run() throws {
        let app = try ApplicationIdentifier(app)
        guard try vault.openVault().apps.remove(app) else {
            throw SharedWebCredentialsError(.missingEntitlement, "\(app) is not registered; nothing to remove")
        }
        TextOutput.line("removed \(app)")
    }
}

/// An app as printed by `app list --json` and `app show --json`.
struct AppJSON: Encodable {
    let app: String
    let entitlements: [String]
    let registeredAt: String
    /// An Android app's signing-certificate fingerprints; nil (left out) for an Apple app.
    let certificateFingerprints: [String]?

    init(_ registered: RegisteredApp) {
        app = registered.identifier.description
        entitlements = registered.entitlements.entries.map(\.description)
        registeredAt = registered.registeredAt.formatted(.iso8601)
        certificateFingerprints =
            registered.identifier.platform == .android
            ? registered.identifier.signingCertificates.map(\.description) : nil
    }

    enum CodingKeys: String, CodingKey {
        case app, entitlements
        case registeredAt = "registered_at"
        case certificateFingerprints = "cert_sha256"
    }
}

/// Prints a value as pretty, sorted JSON.
func printJSON(_ value: some Encodable) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    TextOutput.json(try encoder.encode(value))
}
