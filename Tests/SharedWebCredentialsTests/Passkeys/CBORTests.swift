import Foundation
import Testing

@testable import SharedWebCredentials

@Suite("CBOR: deterministic encoding")
struct CBORTests {
    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// RFC 8949 Appendix A's examples for the types swcred writes.
    @Test(
        "RFC 8949 Appendix A examples",
        arguments: [
            (CBOR.integer(0), "00"), (.integer(1), "01"), (.integer(10), "0a"), (.integer(23), "17"),
            (.integer(24), "1818"), (.integer(25), "1819"), (.integer(100), "1864"), (.integer(1000), "1903e8"),
            (.integer(1_000_000), "1a000f4240"), (.integer(1_000_000_000_000), "1b000000e8d4a51000"),
            (.integer(-1), "20"), (.integer(-10), "29"), (.integer(-100), "3863"), (.integer(-1000), "3903e7"),
            (.integer(Int64.min), "3b7fffffffffffffff"), (.bytes([]), "40"), (.bytes([1, 2, 3, 4]), "4401020304"),
            (.text(""), "60"), (.text("a"), "6161"), (.text("IETF"), "6449455446"), (.text("ü"), "62c3bc"),
            (.array([]), "80"), (.array([.integer(1), .integer(2), .integer(3)]), "83010203"),
            (.array((1...25).map { .integer($0) }), "98190102030405060708090a0b0c0d0e0f101112131415161718181819"),
            (.map([]), "a0"), (.map([(.integer(1), .integer(2)), (.integer(3), .integer(4))]), "a201020304"),
            (
                .map([(.text("a"), .integer(1)), (.text("b"), .array([.integer(2), .integer(3)]))]),
                "a26161016162820203"
            ),
        ])
    func appendixA(_ value: CBOR, _ expected: String) {
        #expect(Self.hex(value.encoded) == expected)
    }

    @Test("map keys are sorted by their encoded bytes, whatever the order given")
    func mapOrder() {
        let cose = CBOR.map([
            (.integer(-3), .bytes([3])), (.integer(-1), .integer(1)), (.integer(3), .integer(-7)),
            (.integer(-2), .bytes([2])), (.integer(1), .integer(2)),
        ])
        #expect(Self.hex(cose.encoded) == "a5010203262001214102224103")
        let attestation = CBOR.map([
            (.text("authData"), .bytes([])), (.text("fmt"), .text("none")), (.text("attStmt"), .map([])),
        ])
        #expect(Self.hex(attestation.encoded) == "a363666d74646e6f6e656761747453746d74a068617574684461746140")
    }
}
