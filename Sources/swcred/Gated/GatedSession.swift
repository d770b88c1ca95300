import SharedWebCredentials

/// What every gated command shares: the app it acts for, the vault, and the network rules for
/// verifying sites. Validates input before asking for a passphrase, and shuts the HTTPS client
/// down however the command ends.
enum GatedSession {
    /// Parses the app identifier, opens the vault and runs `body` with the facade for the app.
    /// `app` is nil only when --app was left out, which only a service's token makes up for.
    static func run<T>(
        app: String?, vault: VaultOptions, network: NetworkOptionGroup,
        _ body: (SharedWebCredentials) async throws -> T
    ) async throws -> T {
        guard let app else { throw missingApp }
        let identifier = try ApplicationIdentifier(app)
        let options = try network.networkOptions()
        let opened = try vault.openVault()
        if options.offline {
            return try await body(SharedWebCredentials(app: identifier, vault: opened, verifier: nil))
        }
        return try await Verifier.withVerifier(options: options) { verifier in
            try await body(SharedWebCredentials(app: identifier, vault: opened, verifier: verifier))
        }
    }

    /// --app left out on the direct path: the vault does not know which app is asking.
    static let missingApp = SharedWebCredentialsError(
        .invalidInput,
        "--app is required when swcred opens the vault itself: name the app that asks (TEAMID.bundle.id or android:PACKAGE), or go through a service with --server (or SWCRED_SERVER) and the app's token, which names the app."
    )

    /// Parses a `--domain` value: `host` or `host:port`, Unicode hosts converted to `xn--` form.
    /// IP addresses and localhost are accepted here; only a `?mode=developer` entitlement entry
    /// can cover them, which the gate checks. So is a single-label (intranet) host, which an import
    /// may have saved: the owner's item commands reach it, and the gate refuses every app for it,
    /// since no entitlement entry can name one.
    static func domain(_ text: String) throws -> DomainTarget {
        try DomainTarget(text, allowDeveloperHosts: true, allowSingleLabel: true)
    }
}
