import SharedWebCredentials

/// What every gated command shares: the app it acts for, the vault, and the network rules for
/// verifying sites. Validates input before asking for a passphrase, and shuts the HTTPS client
/// down however the command ends.
enum GatedSession {
    /// Parses the app identifier, opens the vault and runs `body` with the facade for the app.
    static func run<T>(
        app: String, vault: VaultOptions, network: NetworkOptionGroup,
        _ body: (SharedWebCredentials) async throws -> T
    ) async throws -> T {
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

    /// Parses a `--domain` value: `host` or `host:port`, Unicode hosts converted to `xn--` form.
    /// IP addresses and localhost are accepted here; only a `?mode=developer` entitlement entry
    /// can cover them, which the gate checks. So is a single-label (intranet) host, which an import
    /// may have saved: the owner's item commands reach it, and the gate refuses every app for it,
    /// since no entitlement entry can name one.
    static func domain(_ text: String) throws -> DomainTarget {
        try DomainTarget(text, allowDeveloperHosts: true, allowSingleLabel: true)
    }
}
