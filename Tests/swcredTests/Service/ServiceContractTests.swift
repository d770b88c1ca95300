import Foundation
import TestSupport
import Testing

/// API/openapi.yaml is the contract: the service serves every path and method it lists, and
/// answers with statuses it lists.
@Suite("swcred serve: the OpenAPI document and the service agree", .serialized)
struct ServiceContractTests {
    /// The document, found from this file's place in the repository.
    static let documentPath = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("API/openapi.yaml").path

    /// (path, method, documented statuses) for every operation, read from the document's
    /// `paths:` block (two-space indented paths, four-space methods, eight-space status codes).
    static func operations() throws -> [(path: String, method: String, statuses: Set<Int>)] {
        let text = try String(contentsOfFile: documentPath, encoding: .utf8)
        var operations: [(path: String, method: String, statuses: Set<Int>)] = []
        var path: String?
        var inPaths = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line == "paths:" { inPaths = true; continue }
            if inPaths, !line.isEmpty, !line.hasPrefix(" ") { break }
            guard inPaths else { continue }
            if line.hasPrefix("  /"), line.hasSuffix(":") {
                path = String(line.dropFirst(2).dropLast())
            } else if let path, line.hasPrefix("    "), !line.hasPrefix("     "), line.hasSuffix(":") {
                operations.append((path, line.trimmingCharacters(in: .whitespaces).dropLast().uppercased(), []))
            } else if line.hasPrefix("        \""), let code = Int(line.dropFirst(9).prefix(3)) {
                operations[operations.count - 1].statuses.insert(code)
            }
        }
        return operations
    }

    @Test("every documented route is served; a request with no token gets a documented status in the error shape")
    func everyRouteServed() async throws {
        let operations = try Self.operations()
        #expect(operations.count == 15, "\(operations.map { "\($0.method) \($0.path)" })")
        try await ServiceFixture.with { fixture in
            try fixture.start()
            for operation in operations {
                let response = try fixture.call(operation.method, operation.path, json: [String: String]())
                #expect(
                    operation.statuses.contains(response.status),
                    "\(operation.method) \(operation.path) answered \(response.status): \(response.text)")
                #expect(response.errorCode != "no-route" && response.errorCode != "method-not-allowed")
                if response.status >= 400 { #expect(response.errorCode != nil, "the one error shape") }
            }
            let undocumented = try fixture.call("PATCH", "/v1/credentials", json: [String: String]())
            #expect(undocumented.status == 404 || undocumented.status == 405)
            #expect(undocumented.errorCode == "no-route" || undocumented.errorCode == "method-not-allowed")
        }
    }
}
