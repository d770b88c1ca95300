import ArgumentParser
import Foundation
import SharedWebCredentials

/// `swcred verify APPID [--domain HOST]`: ask the sites now and store their verdicts.
struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract:
            "Fetch the AASA files (Digital Asset Links lists for Android apps) of an app's domains now, store and print the verdicts.",
        discussion: """
            Every entry of the entitlement is verified: webcredentials, applinks, appclips and \
            activitycontinuation, each against its own list in the site's file. Only webcredentials \
            verdicts let an app use credentials; the others are reported. An Android app's domains \
            (get_login_creds) are verified against each site's /.well-known/assetlinks.json. Exit \
            status (from the webcredentials or get_login_creds verdicts, or from all verdicts when the \
            app has none): \
            0 when every verdict is approved, 4 when a site denies the app, 10 when a site could \
            not be reached (network, TLS, 5xx).
            """)

    @Argument(help: ArgumentHelp("The application identifier.", valueName: "APPID"))
    var app: String

    @Option(help: ArgumentHelp("Only the entries covering this host[:port].", valueName: "HOST"))
    var domain: String?

    @Flag(help: "Print JSON.")
    var json = false

    @OptionGroup var vault: VaultOptions
    @OptionGroup var network: NetworkOptionGroup

    func run() async throws {
        let app = try ApplicationIdentifier(app)
        let domain = try self.domain.map { try DomainTarget($0, allowDeveloperHosts: true) }
        let options = try network.networkOptions()
        if options.offline {
            throw SharedWebCredentialsError(.networkFailure, "verify fetches the sites' files; drop --offline")
        }
        let opened = try vault.openVault()
        let registered = try opened.apps.require(app)
        let results = try await Verifier.withVerifier(options: options) { verifier in
            try await AssociationGate(store: opened.associations, verifier: verifier)
                .refresh(app: registered, domain: domain)
        }
        if json {
            try printJSON(AssociationTable.rows(results.map(\.record)))
        } else {
            print(AssociationTable.text(results.map(\.record)))
            fflush(nil)  // the table first, also when both streams go to one pipe
            // Each site's reasons once, on standard error beside the command's other diagnostics:
            // a refusing site's error is the command's error, not said again in a closing line.
            for (_, check) in results {
                for reason in check.reasons {
                    Terminal.writeToStandardError(
                        "swcred: "
                            + Terminal.displayable(
                                "\(check.entry.service.rawValue):\(AssociationStore.domainKey(for: check.entry)): \(reason)"
                            )
                            + "\n")
                }
            }
        }
        if results.isEmpty {
            throw SharedWebCredentialsError(.missingEntitlement, "\(app) has no entitlement entry to verify")
        }
        let gating = results.map(\.check).filter { $0.entry.service.grantsCredentials }
        let checks = gating.isEmpty ? results.map(\.check) : gating
        if let denied = checks.first(where: { $0.verdict == .denied }) {
            throw refusal(
                .notApproved, denied,
                "\(denied.entry.service.rawValue):\(AssociationStore.domainKey(for: denied.entry)) does not approve \(app)",
                or: "not listed")
        }
        if let failed = checks.first(where: { $0.verdict == .unverified }) {
            throw refusal(
                .networkFailure, failed,
                "could not verify \(failed.entry.service.rawValue):\(AssociationStore.domainKey(for: failed.entry))",
                or: "network failure")
        }
    }

    /// The command's failure for a refusing site. In text mode its errors were just written to
    /// standard error, each once, so only the exit status is left to give; with --json (no
    /// reasons written) or no error known, one line says what and why.
    private func refusal(
        _ code: SharedWebCredentialsError.Code, _ check: DomainVerification, _ what: String, or fallback: String
    ) -> any Error {
        if !json && check.reasons.contains(where: { $0.severity == .error }) { return ExitCode(code.exitStatus) }
        return SharedWebCredentialsError(code, "\(what): \(check.summary ?? fallback)")
    }
}

/// `swcred show`: the stored verdicts, like `swcutil show`.
struct ShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show stored association verdicts (service, app, domain, verdict, checks, last error).")

    @Option(help: ArgumentHelp("Only this app.", valueName: "APPID"))
    var app: String?

    @Flag(help: "Print JSON.")
    var json = false

    @OptionGroup var vault: VaultOptions

    func run() throws {
        let app = try self.app.map(ApplicationIdentifier.init)
        let records = try vault.openVault().associations.all(app: app)
        if json {
            try printJSON(AssociationTable.rows(records))
        } else {
            print(AssociationTable.text(records))
        }
    }
}
