import CSodium
import Foundation
import Testing

/// A client key pair made with libsodium directly.
struct ClientKeys {
    var publicKey = [UInt8](repeating: 0, count: 32)
    var secretKey = [UInt8](repeating: 0, count: 32)

    init() {
        _ = sodium_init()
        crypto_box_keypair(&publicKey, &secretKey)
    }

    var publicKeyBase64: String { Data(publicKey).base64EncodedString() }
}

/// libsodium's `crypto_box_easy`, the one-shot call the extension's TweetNaCl `box` matches.
func boxEasy(_ message: [UInt8], nonce: [UInt8], publicKey: [UInt8], secretKey: [UInt8]) -> [UInt8] {
    var box = [UInt8](repeating: 0, count: message.count + Int(crypto_box_MACBYTES))
    #expect(crypto_box_easy(&box, message, UInt64(message.count), nonce, publicKey, secretKey) == 0)
    return box
}

/// libsodium's `crypto_box_open_easy`, or nil when the box does not open.
func openEasy(_ box: [UInt8], nonce: [UInt8], publicKey: [UInt8], secretKey: [UInt8]) -> [UInt8]? {
    guard box.count >= Int(crypto_box_MACBYTES) else { return nil }
    var message = [UInt8](repeating: 0, count: box.count - Int(crypto_box_MACBYTES))
    guard crypto_box_open_easy(&message, box, UInt64(box.count), nonce, publicKey, secretKey) == 0 else { return nil }
    return message
}

func json(_ object: [String: Any]) -> [UInt8] {
    [UInt8](try! JSONSerialization.data(withJSONObject: object))
}

func object(_ bytes: [UInt8]?) -> [String: Any]? {
    guard let bytes else { return nil }
    return (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
}
