import SharedWebCredentialsCore

/// libFuzzer entry point: any bytes, decoded leniently as UTF-8, as an associated-domains
/// entitlement entry (`webcredentials:example.com`), a domain target and an app identifier.
/// An accepted entry must print a form that parses back to the same entry.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDomainEntry(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    let text = String(decoding: bytes, as: UTF8.self)
    if let entry = try? AssociatedDomainEntry(text) {
        precondition((try? AssociatedDomainEntry(entry.description)) == entry, "entry does not round-trip")
        _ = entry.covers(entry.aasaTarget)
    }
    if let target = try? DomainTarget(text, allowDeveloperHosts: true) {
        precondition(
            (try? DomainTarget(target.description, allowDeveloperHosts: true)) == target, "target does not round-trip")
    }
    _ = try? DomainTarget(text)
    _ = try? ApplicationIdentifier(text)
    return 0
}
