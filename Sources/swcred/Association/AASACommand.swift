import ArgumentParser

/// `swcred aasa ...`: work with apple-app-site-association files.
struct AASACommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "aasa",
        abstract: "Check apple-app-site-association files and the universal links they allow.",
        subcommands: [AASACheckCommand.self, AASAMatchCommand.self])
}
