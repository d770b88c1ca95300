/// The challenge rule shared by both ceremonies.
enum Challenge {
    /// The shortest challenge swcred signs. WebAuthn asks relying parties for at least 16 random
    /// bytes (§13.4.3); a shorter one suggests a replayable or guessable value, so it is refused
    /// as `NotAllowedError` (code invalid-input) rather than signed.
    static let minimumByteCount = 16

    static func read(_ reader: WebAuthnJSONReader) throws(WebAuthnError) -> [UInt8] {
        let challenge = try reader.requiredBytes("challenge")
        guard challenge.count >= minimumByteCount else {
            throw WebAuthnError(
                .notAllowed, .invalidInput,
                "\(reader.path).challenge has \(challenge.count) bytes; a challenge needs at least \(minimumByteCount) random bytes"
            )
        }
        return challenge
    }
}
