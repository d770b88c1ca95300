import SharedWebCredentialsCore

/// libFuzzer entry point: any bytes, decoded leniently as UTF-8, as a Password Rules string.
/// Beyond not crashing, the canonical form the parser prints must parse back to itself.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPasswordRules(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    let text = String(decoding: bytes, as: UTF8.self)
    let canonical = PasswordRulesParser.parse(text).rules.description
    let reparsed = PasswordRulesParser.parse(canonical).rules.description
    precondition(reparsed == canonical, "canonical rules do not round-trip")
    return 0
}
