import Foundation
import Testing

@testable import TestSupport

/// DESIGN.md's start-up budget: parsing the command line casts types to protocols, and every cast
/// the runtime has not cached scans the conformance records it knows. The link puts the
/// third-party packages' records in a section of their own that swcred hands the runtime only
/// after parsing (Sources/CConformanceRegistration), so that `swcred --version` scans the
/// standard library's, argument parsing's and swcred's own, and a command still sees them all.
@Suite("Deferred conformance records")
struct DeferredConformancesTests {
    /// The size in bytes of each section of `binary`, read with binutils' objdump.
    private func sectionSizes(of binary: URL) throws -> [String: Int] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/objdump")
        process.arguments = ["-h", binary.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        var sizes: [String: Int] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.count > 2, Int(fields[0]) != nil, let size = Int(fields[2], radix: 16) {
                sizes[String(fields[1])] = size
            }
        }
        return sizes
    }

    @Test("the third-party packages' records are out of the section the runtime scans at start-up")
    func thirdPartyRecordsAreDeferred() throws {
        let sizes = try sectionSizes(of: SwcredProcess.executableURL)
        let scanned = try #require(sizes["swift5_protocol_conformances"]) / 4
        let deferred =
            try #require(sizes["swcred_deferred_conformances"], "no deferred section: \(sizes.keys.sorted())") / 4
        // Debug build: 1,360 scanned (swcred's modules and argument parsing; the runtime's are in
        // its own library) and 6,609 deferred; release, with the runtime and Foundation linked in,
        // 2,872 and 9,777 (Foundation's records deferred too; 6,418 and 6,231 before, when only
        // the third-party packages' were). Before issue 52, none was deferred.
        #expect(2 * deferred > scanned, "scanned at start-up \(scanned), deferred \(deferred)")
    }

    @Test("a command that needs the deferred records gets them: a vault made and read back")
    func commandsSeeDeferredRecords() throws {
        let folder = try TemporaryDirectory()
        let environment = [
            "SWCRED_VAULT": folder.path("vault.sqlite"),
            "SWCRED_PASSPHRASE": "deferred conformance test passphrase",
        ]
        let created = try SwcredProcess.run(
            ["init", "--kdf-opslimit", "1", "--kdf-memlimit", "8192"], environment: environment)
        #expect(created.status == 0, "\(created.stderr)")
        let listed = try SwcredProcess.run(["app", "list"], environment: environment)
        #expect(listed.status == 0, "\(listed.stderr)")
    }

    @Test("messages are made with every record: the tool-info dump, encoded by Foundation, is whole")
    func messagesSeeDeferredRecords() throws {
        // Argument parsing's tool-info types are among the deferred records; without them the
        // dump crashed (SIGSEGV) before printing anything.
        let dumped = try SwcredProcess.run(["--experimental-dump-help"])
        #expect(dumped.status == 0, "\(dumped.stderr)")
        let tree = try JSONSerialization.jsonObject(with: dumped.stdoutData) as? [String: Any]
        let command = tree?["command"] as? [String: Any]
        #expect(command?["commandName"] as? String == "swcred")
        let subcommands = (command?["subcommands"] as? [[String: Any]])?.compactMap { $0["commandName"] as? String }
        #expect(subcommands?.contains("generate") == true, "\(subcommands ?? [])")
    }
}
