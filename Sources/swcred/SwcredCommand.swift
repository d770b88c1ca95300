import ArgumentParser

/// The root of the `swcred` command-line tool.
struct SwcredCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "swcred",
        abstract: "Shared web credentials: a vault that releases passwords only to apps a website approves.",
        discussion: """
            An app may use a website's saved passwords only when both vouch for each other: the app \
            lists the domain in its webcredentials: entitlement, and the site lists the app in its \
            apple-app-site-association file, fetched over HTTPS.

            Passwords never come from the command line: use --password-stdin or --generate. The \
            passphrase comes from SWCRED_PASSPHRASE, --passphrase-file, or a prompt on a terminal.
            """,
        version: "0.1.0",
        subcommands: [
            InitCommand.self, StatusCommand.self, PasswdCommand.self, RekeyCommand.self,
            AppCommand.self, VerifyCommand.self, ShowCommand.self,
            RequestCommand.self, AddCommand.self, DeleteCommand.self, NeverSaveCommand.self,
            GenerateCommand.self, RulesCommand.self, AASACommand.self, DALCommand.self, SiteCommand.self,
            ServeHandoffCommand.self,
            LockCommand.self, UnlockCommand.self, ConsentCommand.self, ItemCommand.self, AuditCommand.self,
            ImportCommand.self, ExportCommand.self, PasskeyCommand.self, StoreCommand.self, BrowserCommand.self,
        ]
    )
}
