import Foundation
import Testing

@testable import SwcredBrowser

/// The bridge's JSON writer against Foundation's: both texts parsed back by `JSONSerialization`
/// and `JSONDecoder` must give the same values, for strings holding every control character,
/// quotation marks, backslashes, slashes, DEL, text beyond the Basic Multilingual Plane and
/// combining marks (a Swift string cannot hold a lone surrogate, so none can reach the writer).
@Suite struct BrowserJSONWriterTests {
    /// Strings made from every awkward piece, alone and in random mixtures.
    static func awkwardStrings() -> [String] {
        let controls = (0..<0x20).map { String(UnicodeScalar(UInt8($0))) }
        let pieces =
            controls + [
                "\"", "\\", "/", "\u{7F}", "\u{80}", "\u{2028}", "\u{2029}", "\u{FEFF}", "\u{FFFD}", "\u{FFFF}", "é",
                "e\u{301}", "日本", "\u{1F600}", "\u{10FFFF}", "\u{1D11E}", "plain", " ", "\\u0041", "",
            ]
        var generator = SystemRandomNumberGenerator()
        var strings = pieces + [controls.joined(), pieces.joined()]
        for _ in 0..<500 {
            let count = Int.random(in: 0...12, using: &generator)
            strings.append((0..<count).map { _ in pieces.randomElement(using: &generator)! }.joined())
        }
        return strings
    }

    /// A get-logins reply as the engine makes it, with `text` in every string member.
    static func reply(_ text: String, count: Int) -> [String: BrowserJSONValue] {
        let entry: BrowserJSONValue = [
            "login": .string(text), "name": .string(text), "password": .string(text), "uuid": .string(text),
            "group": .string(text), "stringFields": [], "totp": "otpauth", "expired": "true",
        ]
        return [
            "count": .integer(count), "entries": .array([entry, entry]), "hash": .string(text), "id": .string(text),
            "nonce": "AAAA", "success": "true", "version": "2.7.4", "error": nil, text: .string(text),
        ]
    }

    /// The same reply as Foundation's objects, for `JSONSerialization` to write.
    static func foundationObject(_ value: BrowserJSONValue) -> Any {
        switch value {
        case .string(let string): string
        case .integer(let integer): integer
        case .null: NSNull()
        case .array(let elements): elements.map(foundationObject)
        case .object(let members): members.mapValues(foundationObject)
        }
    }

    /// What both texts mean, as `JSONDecoder` reads them.
    struct Reply: Decodable, Equatable {
        struct Entry: Decodable, Equatable {
            let login, name, password, uuid, group, totp, expired: String
            let stringFields: [String]
        }
        let count: Int
        let entries: [Entry]
        let hash, id, nonce, success, version: String
        let error: String?
    }

    @Test(
        "replies mean what JSONSerialization's text meant, for every control character, quote, backslash and non-BMP text"
    )
    func sameMeaningAsFoundation() throws {
        for (index, text) in Self.awkwardStrings().enumerated() {
            let reply = Self.reply(text, count: index)
            let ours = Data(BrowserJSONWriter.data(reply))
            let foundation = try JSONSerialization.data(
                withJSONObject: Self.foundationObject(.object(reply)), options: [.sortedKeys, .withoutEscapingSlashes])
            let oursParsed = try #require(try JSONSerialization.jsonObject(with: ours) as? NSDictionary)
            let foundationParsed = try #require(try JSONSerialization.jsonObject(with: foundation) as? NSDictionary)
            #expect(oursParsed == foundationParsed, "\(text.unicodeScalars.map { $0.value })")
            #expect(
                try JSONDecoder().decode(Reply.self, from: ours)
                    == JSONDecoder().decode(Reply.self, from: foundation))
            // Every scalar comes back as it went in, U+FEFF included (JSONSerialization's reader
            // drops that one, in both texts alike; JSONDecoder keeps it).
            let alone = try JSONDecoder().decode(
                [String: String].self, from: Data(BrowserJSONWriter.data(["text": .string(text)])))
            #expect(
                alone["text"]?.unicodeScalars.elementsEqual(text.unicodeScalars) == true,
                "\(text.unicodeScalars.map(\.value))")
        }
    }

    @Test("strings are escaped exactly as RFC 8259 requires and no more; keys sorted by their bytes")
    func exactText() {
        let text = String(
            decoding: BrowserJSONWriter.data(["b": "\"\\/\u{0}\u{1F}\u{7F}é\u{1F600}", "a": [1, -2, nil], "C": [:]]),
            as: UTF8.self)
        #expect(text == #"{"C":{},"a":[1,-2,null],"b":"\"\\/\u0000\u001f"# + "\u{7F}é\u{1F600}\"}")
    }
}
