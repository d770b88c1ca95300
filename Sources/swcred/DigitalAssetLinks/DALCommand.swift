import ArgumentParser

/// `swcred dal ...`: work with Digital Asset Links statement lists (Android apps).
struct DALCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dal",
        abstract: "Check Digital Asset Links statement lists (assetlinks.json), which approve Android apps.",
        subcommands: [DALCheckCommand.self])
}
