import SwcredService
import Testing

@testable import swcred_serve

/// `swcred-serve`'s parsing: each option as typed sets its own field of ``ServiceOptions`` and
/// no other, so the cases of ``ServiceOptionsTests`` hold from the command line to the
/// configuration.
@Suite("swcred serve's options as parsed")
struct ServiceStartCommandTests {
    @Test("no option parses to the defaults of ServiceOptions")
    func defaults() throws {
        #expect(try ServiceStartCommand.parse([]).options == ServiceOptions.defaults)
    }

    @Test("each option as typed changes its own field alone", arguments: ServiceOptionsTests.cases)
    func parsedAlone(_ option: ServiceOptionsTests.Case) throws {
        var expected = ServiceOptions.defaults
        option.change(&expected)
        #expect(try ServiceStartCommand.parse(option.arguments).options == expected)
    }
}
