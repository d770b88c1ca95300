import Foundation
import Testing

@testable import SharedWebCredentials

@Suite("shared-credentials.json")
struct SharedCredentialGroupsTests {
    @Test("the embedded copy is byte for byte the committed file")
    func embeddedCopyMatches() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Resources/password-manager-resources/shared-credentials.json")
        let committed = try Data(contentsOf: file)
        #expect(Data(SharedCredentialGroups.embeddedJSON.utf8) == committed)
    }

    @Test("a shared group relates every member to the others, not to itself")
    func sharedGroup() {
        let related = SharedCredentialGroups.domains(sharingCredentialsWith: "3docean.net")
        #expect(related.contains("envato.com"))
        #expect(related.contains("themeforest.net"))
        #expect(!related.contains("3docean.net"))
    }

    @Test("from/to works one way: credentials of the old domain serve the new one")
    func fromTo() {
        #expect(SharedCredentialGroups.domains(sharingCredentialsWith: "hosting.com").contains("a2hosting.com"))
        #expect(!SharedCredentialGroups.domains(sharingCredentialsWith: "a2hosting.com").contains("hosting.com"))
        #expect(SharedCredentialGroups.domains(sharingCredentialsWith: "unrelated.example").isEmpty)
    }
}
