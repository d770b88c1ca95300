import Testing

@testable import SharedWebCredentials

@Suite("Error codes")
struct ErrorCodeTests {
    @Test("stable codes are unique and kebab-case")
    func codesAreStable() {
        let raw = SharedWebCredentialsError.Code.allCases.map(\.rawValue)
        #expect(Set(raw).count == raw.count)
        #expect(raw.allSatisfy { $0.allSatisfy { $0.isLowercase || $0 == "-" } })
    }
}
