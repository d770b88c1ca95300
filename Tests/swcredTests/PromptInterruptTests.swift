import Foundation
import TestSupport
import Testing

/// Ctrl-C or a termination signal at a no-echo passphrase prompt must give the terminal its echo
/// back: otherwise the user's shell goes on with everything typed invisible.
@Suite("Interrupting a passphrase prompt on a terminal")
struct PromptInterruptTests {
    /// Runs `swcred init` at a prompt on a real terminal (tmux), under a shell that survives the
    /// signal and then prints swcred's exit status and whether the terminal echoes.
    private func promptThenInterrupt(
        _ interrupt: (TerminalSession, String) throws -> Void
    ) throws -> (screen: String, vaultExists: Bool) {
        let directory = try TemporaryDirectory()
        let vault = directory.path("vault.sqlite")
        let script = directory.path("prompt.sh")
        let pidFile = directory.path("swcred.pid")
        try """
        trap true INT TERM
        sh -c 'echo $$ > "$3"; exec "$1" init --vault "$2"' sh "$1" "$2" "$3"
        echo "swcred ended: $?"
        echo "echo-state: $(stty -a | tr ' ;' '\\n\\n' | grep -x -e echo -e -echo)"
        """.write(toFile: script, atomically: true, encoding: .utf8)
        let terminal = try TerminalSession(
            executable: "/bin/sh", arguments: [script, SwcredProcess.executableURL.path, vault, pidFile],
            environment: [:])
        try terminal.waitFor("New vault passphrase:")
        try interrupt(terminal, pidFile)
        _ = try terminal.exitStatus()
        return (try terminal.screen(), FileManager.default.fileExists(atPath: vault))
    }

    @Test("Ctrl-C at the prompt: swcred ends by SIGINT, echo is back, no vault is created")
    func controlC() throws {
        let (screen, vaultExists) = try promptThenInterrupt { terminal, _ in try terminal.type("C-c") }
        #expect(screen.contains("swcred ended: 130"), "\(screen)")
        #expect(screen.contains("echo-state: echo"), "\(screen)")
        #expect(!vaultExists)
    }

    @Test("SIGTERM at the prompt: swcred ends by SIGTERM, echo is back, no vault is created")
    func terminate() throws {
        let (screen, vaultExists) = try promptThenInterrupt { _, pidFile in
            let pid = try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(
                in: .whitespacesAndNewlines)
            #expect(kill(pid_t(pid) ?? 0, SIGTERM) == 0)
        }
        #expect(screen.contains("swcred ended: 143"), "\(screen)")
        #expect(screen.contains("echo-state: echo"), "\(screen)")
        #expect(!vaultExists)
    }
}
