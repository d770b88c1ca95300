import Foundation
import Testing

@testable import TestSupport

/// A request that says it has no body with `Content-Length: 0` (as curl's `-d ''`, Python's
/// http.client and most clients send an empty POST) has no body to check: no content type is
/// asked of it, as of one without the header; a body of one byte or more is checked.
@Suite("swcred serve: an empty body declared with Content-Length: 0")
struct ServiceEmptyBodyTests {
    @Test("POST /v1/lock with Content-Length: 0 and no content type locks; with a byte of body it must be JSON")
    func emptyBody() async throws {
        try await ServiceFixture.with { fixture in
            try fixture.start()
            let empty = try fixture.call("POST", "/v1/lock", body: Data(), contentType: nil)
            #expect(empty.status == 200, "\(empty.text)")
            let oneByte = try fixture.call("POST", "/v1/lock", body: Data(" ".utf8), contentType: "text/plain")
            #expect(oneByte.status == 415, "\(oneByte.text)")
        }
    }
}
