import Foundation
import Logging
import ServiceLifecycle
import SharedWebCredentials
import SwcredBrowser

/// The browser listener of `swcred serve --browser` as one of the service group's services: it
/// tells every connected browser when the vault locks and unlocks (`database-locked`,
/// `database-unlocked`, as KeePassXC does), and closes the socket when the service stops.
struct BrowserNotices: Service {
    private let listener: BrowserSocketListener
    private let holder: VaultHolder
    /// How often the lock state is looked at.
    private let interval: Duration = .milliseconds(200)

    /// Starts serving browsers on `socketPath`, one protocol engine per connection over `bridge`.
    /// Throws `.invalidInput` naming the problem when the socket cannot be served (KeePassXC
    /// already serves it, a directory that is not ours), before the service starts.
    static func start(
        socketPath: String, legacyLinkPath: String?, bridge: ServiceBrowserBridge, holder: VaultHolder,
        logger: Logger
    ) throws -> BrowserNotices {
        let listener = BrowserSocketListener(
            socketPath: socketPath, legacyLinkPath: legacyLinkPath,
            log: { logger.notice("browser socket: \($0)") },
            makeEngine: { _, peerPID in BrowserProtocolEngine(vault: bridge, peerPID: peerPID) })
        do {
            try listener.start()
        } catch .alreadyServed(let path) {
            // As for the service's own socket: another server holds it (exit 11).
            throw SharedWebCredentialsError(
                .vaultBusy,
                "--browser: something already listens on \(path) (KeePassXC?); quit it, or serve without --browser")
        } catch {
            throw SharedWebCredentialsError(.invalidInput, "--browser: \(error)")
        }
        logger.notice("listening for browsers", metadata: ["socket": "\(socketPath)"])
        return BrowserNotices(listener: listener, holder: holder)
    }

    func run() async throws {
        defer { listener.stop() }
        let holder = holder
        let listener = listener
        let interval = interval
        do {
            try await cancelWhenGracefulShutdown {
                var locked = holder.isLocked
                while true {
                    try await Task.sleep(for: interval)
                    let now = holder.isLocked
                    if now != locked {
                        listener.broadcast(now ? .databaseLocked : .databaseUnlocked)
                        locked = now
                    }
                }
            }
        } catch is CancellationError {
            return
        }
    }
}
