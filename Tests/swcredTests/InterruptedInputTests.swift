import Foundation
import Testing

@testable import TestSupport

/// A password piped into `swcred` whose reads and writes a signal interrupts (EINTR): each is
/// retried, and the password is stored whole, as if nothing had happened.
@Suite("swcred: standard input and output interrupted")
struct InterruptedInputTests {
    @Test("item set --password-stdin with every read of standard input interrupted once stores the password whole")
    func interruptedPassword() throws {
        let directory = try TemporaryDirectory()
        let interrupting = try PreloadLibrary.build(
            "interrupting", source: PreloadLibrary.interruptingSource, in: directory.url.path)
        let vault = ["--vault", directory.path("vault.sqlite")]
        let environment = ["SWCRED_PASSPHRASE": "interrupted input test passphrase 58"]
        let made = try SwcredProcess.run(
            ["init", "--kdf-opslimit", "1", "--kdf-memlimit", "8192"] + vault, environment: environment)
        #expect(made.status == 0, "\(made.stderr)")
        let interrupted = environment.merging(["LD_PRELOAD": interrupting]) { $1 }
        let set = try SwcredProcess.run(
            ["item", "set", "example.com", "--account", "alice", "--password-stdin", "--yes"] + vault,
            environment: interrupted, stdin: Data("interrupted-Pw-58\n".utf8))
        #expect(set.status == 0, "\(set.stderr)")
        let shown = try SwcredProcess.run(
            ["item", "show", "example.com", "--account", "alice", "--reveal"] + vault, environment: interrupted)
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout.contains("password: interrupted-Pw-58\n"), "\(shown.stdout)")
    }
}
