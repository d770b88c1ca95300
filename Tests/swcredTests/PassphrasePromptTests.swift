import Foundation
import Testing

@testable import TestSupport

/// The no-echo passphrase prompt, driven through a real pseudo-terminal by util-linux `script`.
@Suite(
    "Passphrase prompt on a terminal",
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "needs util-linux script"))
struct PassphrasePromptTests {
    /// Runs `swcred ARGUMENTS` on a pseudo-terminal, typing each line after a pause (as a person
    /// would, after the prompt has turned echo off). Returns the exit status and the terminal transcript.
    private func runOnTerminal(_ arguments: [String], typing lines: [String]) throws -> (Int32, String) {
        let command = ([SwcredProcess.executableURL.path] + arguments).map { "'\($0)'" }.joined(separator: " ")
        let typing = lines.map { "sleep 0.5; printf '%s\\n' '\($0)'" }.joined(separator: "; ")
        let script = "(\(typing)) | /usr/bin/script -q -e -c \"\(command)\" /dev/null"
        let result = try SwcredProcess.run(["-c", script], executable: URL(fileURLWithPath: "/bin/bash"))
        return (result.status, result.stdout)
    }

    @Test("init asks twice without echo; status unlocks from the prompt; a mismatch changes nothing")
    func promptWithoutEcho() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.sqlite")
        let fast = ["--kdf-opslimit", "1", "--kdf-memlimit", "8192"]
        let (created, transcript) = try runOnTerminal(
            ["init", "--vault", path] + fast, typing: ["typed-on-tty-91", "typed-on-tty-91"])
        #expect(created == 0, "\(transcript)")
        #expect(transcript.contains("New vault passphrase:") && transcript.contains("Repeat to confirm:"))
        #expect(!transcript.contains("typed-on-tty-91"))

        let (unlocked, statusTranscript) = try runOnTerminal(
            ["status", "--verify", "--vault", path], typing: ["typed-on-tty-91"])
        #expect(unlocked == 0 && statusTranscript.contains("credentials:  0"), "\(statusTranscript)")
        #expect(!statusTranscript.contains("typed-on-tty-91"))

        let other = directory.path("other.sqlite")
        let (mismatch, mismatchTranscript) = try runOnTerminal(
            ["init", "--vault", other] + fast, typing: ["first-passphrase", "second-passphrase"])
        #expect(mismatch == 2 && mismatchTranscript.contains("differ"))
        #expect(!FileManager.default.fileExists(atPath: other))
    }
}
