import ArgumentParser
import SharedWebCredentials

/// `swcred never-save`: the owner's "Never for this website" marker.
struct NeverSaveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "never-save",
        abstract: "Mark a host so that apps can never save passwords for it (or clear the mark).",
        discussion: """
            Apple's "Never for this website": while a host is marked, `swcred add` for it fails \
            with "Item already exists for this server" (exit 12). Saved passwords are kept and can \
            still be requested and deleted. The host is stored encrypted.

            Examples:
              swcred never-save shop.example.com
              swcred never-save shop.example.com --clear
              swcred never-save --list
            """)

    @OptionGroup var vault: VaultOptions

    @Argument(help: ArgumentHelp("The host to mark, e.g. example.com.", valueName: "host"))
    var host: String?

    @Flag(help: "Remove the mark instead of setting it.")
    var clear = false

    @Flag(help: "List the marked hosts.")
    var list = false

    func validate() throws {
        if list {
            guard host == nil, !clear else { throw ValidationError("--list takes no host and no --clear.") }
        } else if host == nil {
            throw ValidationError("Give the host to mark (or --list).")
        }
    }

    func run() throws {
        let target = try host.map { try DomainTarget($0) }
        let store = try vault.openVault().neverSave
        if list {
            for marked in try store.hosts() { TextOutput.line(marked) }
            return
        }
        guard let target else { return }
        if clear {
            let existed = try store.clear(target.host)
            TextOutput.line(existed ? "\(target.host): mark cleared" : "\(target.host) was not marked")
        } else {
            try store.mark(target.host)
            TextOutput.line("\(target.host): apps can no longer save passwords for it")
        }
    }
}
