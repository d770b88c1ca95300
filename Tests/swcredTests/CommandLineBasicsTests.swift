import Foundation
import Testing

@testable import TestSupport

@Suite("swcred command line basics")
struct CommandLineBasicsTests {
    @Test("--help explains the tool and exits 0")
    func helpExitsZero() throws {
        let result = try SwcredProcess.run(["--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("USAGE: swcred"))
        #expect(result.stdout.contains("webcredentials"))
    }

    @Test("an unknown option is an invalid argument: exit 2 with a message on stderr")
    func unknownOptionExitsTwo() throws {
        let result = try SwcredProcess.run(["--no-such-option"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("no-such-option"))
        #expect(result.stdout.isEmpty)
    }
}
