import ArgumentParser
import Foundation
import SharedWebCredentials
import SharedWebCredentialsClient
import SwcredBrowser

/// The socket of the service the owner commands talk to, and the other uid trusted to run it.
struct ServiceSocketOption: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The service's socket (default: $XDG_RUNTIME_DIR/swcred/swcred.sock, else /tmp/swcred-UID/swcred.sock).",
            valueName: "path"))
    var socket: String?

    @OptionGroup var trust: ServerUIDOption

    /// Runs `body` with a client of the service, closing it however `body` ends. The client
    /// checks the socket before it sends anything (its directory's owner and mode, the peer's uid).
    func withClient<T>(_ body: (ServiceOwnerClient) async throws -> T) async throws -> T {
        let client = try ServiceOwnerClient(
            socketPath: socket ?? ServiceSocket.defaultPath(), trustedServiceUID: try trust.trustedUID())
        do {
            let result = try await body(client)
            try? await client.shutdown()
            return result
        } catch {
            try? await client.shutdown()
            throw error
        }
    }
}

/// `swcred lock`: wipe the running service's vault key now.
struct LockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lock", abstract: "Lock the running service: its vault key is wiped until `swcred unlock`.")

    @OptionGroup var service: ServiceSocketOption

    func run() async throws {
        try await service.withClient { try await $0.lock() }
        Terminal.writeToStandardError("swcred: the service is locked\n")
    }
}

/// `swcred unlock`: unlock the running service with the passphrase (or the key file).
struct UnlockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlock",
        abstract: "Unlock the running service with the vault's passphrase (or --key-file).",
        discussion: """
            The passphrase comes from SWCRED_PASSPHRASE, --passphrase-file or a prompt, as for \
            every command, and goes to the service over its Unix socket only.
            """)

    @OptionGroup var service: ServiceSocketOption

    @Option(help: ArgumentHelp("Read the passphrase from this file.", valueName: "path"))
    var passphraseFile: String?

    @Option(
        help: ArgumentHelp(
            "The vault's key file: read here, and its bytes sent to the service (which opens no file a request names).",
            valueName: "path"))
    var keyFile: String?

    func run() async throws {
        if let keyFile {
            let key = try KeyFile.read(at: keyFile)
            try await service.withClient { try await $0.unlock(key: key) }
        } else {
            let passphrase = try PassphraseInput.read(
                file: passphraseFile, environmentVariable: "SWCRED_PASSPHRASE", fileOption: "--passphrase-file",
                prompt: "Vault passphrase: ", confirm: false)
            try await service.withClient { try await $0.unlock(passphrase: passphrase) }
        }
        Terminal.writeToStandardError("swcred: the service is unlocked\n")
    }
}

/// `swcred consent`: answer the requests of `--consent ask` tokens, one at a time.
struct ConsentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "consent",
        abstract: "Approve or decline, one at a time, what apps with --consent ask tokens want to do.",
        discussion: """
            Shows each waiting request (app, operation, domain, account) and asks yes or no on the \
            terminal; a request nobody answers within the service's --consent-timeout is declined. \
            Runs until interrupted, or with --once until one request is answered.

            Only the vault's owner may answer, so this first unlocks the vault the service holds \
            (--vault, with SWCRED_PASSPHRASE, --passphrase-file, a prompt or --key-file) and \
            answers the service's random challenge with a key derived from it: an app, even one \
            with a token or running as your user, cannot answer its own request.
            """)

    @OptionGroup var service: ServiceSocketOption

    @OptionGroup var vault: VaultOptions

    @Flag(help: "Answer one request, then exit.")
    var once = false

    func run() async throws {
        guard Consent.canAsk else {
            throw SharedWebCredentialsError(
                .declined, "swcred consent asks on a terminal: run it where you can answer (standard input and error)")
        }
        let ownersVault = try vault.openVault()
        try await service.withClient { owner in
            let session = try await owner.openOwnerSession(with: ownersVault)
            do {
                try await answerRequests(session)
                try? await session.shutdown()
            } catch {
                try? await session.shutdown()
                throw error
            }
        }
    }

    /// Asks about each waiting request and sends the answer, until interrupted (or one, `--once`).
    private func answerRequests(_ session: ServiceOwnerSession) async throws {
        Terminal.writeToStandardError("swcred: waiting for requests (Ctrl-C to stop)\n")
        while true {
            guard let request = try await session.nextConsentRequest(wait: 30) else { continue }
            let answer = Self.ask(about: request)
            do {
                try await session.answer(request, approve: answer.approve, name: answer.name, remember: answer.remember)
                Terminal.writeToStandardError("swcred: \(answer.approve ? "approved" : "declined")\n")
            } catch let error as SharedWebCredentialsError where error.code == .itemNotFound {
                Terminal.writeToStandardError("swcred: too late: that request already timed out\n")
            }
            if once { return }
        }
    }

    /// The program on the other end of the browser socket, for the owner: the chain of processes
    /// from the oldest parent down to it, then its command line.
    private static func describe(_ peer: ServiceOwnerClient.ConsentRequest.Peer?) -> String {
        guard let peer else { return "    (the service did not say which program asks)" }
        let process = BrowserPeerProcess(
            pid: peer.pid, executable: peer.executable, commandLine: peer.commandLine,
            ancestors: peer.parents.map { .init(pid: $0.pid, executable: $0.executable) })
        return """
                from \(Terminal.displayable(process.chain))
                command line: \(Terminal.displayable(peer.commandLine ?? "(not readable)"))
            """
    }

    /// The owner's answer to one request: yes or no; for a browser's association also its name
    /// (Enter takes the one offered); for a browser's release whether to remember it for that site.
    private static func ask(
        about request: ServiceOwnerClient.ConsentRequest
    ) -> (
        approve: Bool, name: String?, remember: Bool
    ) {
        if request.isBrowserAssociation {
            let suggested = request.suggestedName ?? "browser"
            let question = """
                A browser asks to use this vault (KeePassXC-Browser). Check that the program asking is \
                your browser:
                \(describe(request.peer))
                Its key fingerprint (the extension shows the first characters of its key once associated):
                    \(Terminal.displayable(request.fingerprint ?? "?"))
                Approve it?
                """
            guard Consent.ask(question) else { return (false, nil, false) }
            while true {
                Terminal.writeToStandardError("Name for this browser [\(Terminal.displayable(suggested))]: ")
                let typed = readLine(strippingNewline: true)?.trimmingCharacters(in: .whitespaces) ?? ""
                let name = typed.isEmpty ? suggested : typed
                do {
                    try BrowserAssociation.validate(name: name)
                    return (true, name, false)
                } catch let error as SharedWebCredentialsError {
                    Terminal.writeToStandardError("swcred: \(error.message); type another\n")
                } catch {
                    return (false, nil, false)
                }
            }
        }
        let account = request.account.map { " for \"\(Terminal.displayable($0))\"" } ?? ""
        let question =
            "\(Terminal.displayable(request.app)) wants to \(request.operation)\(account) on \(Terminal.displayable(request.domain)). Allow?"
        let approve = Consent.ask(question)
        guard request.isFromBrowser else { return (approve, nil, false) }
        let remember = Consent.ask(
            "Answer the same for \(Terminal.displayable(request.app)) on this site until the service stops?")
        return (approve, nil, remember)
    }
}
