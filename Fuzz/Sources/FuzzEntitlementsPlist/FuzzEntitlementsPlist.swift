import Foundation
import SharedWebCredentialsCore

/// libFuzzer entry point: any bytes, as an entitlements property list (XML or binary).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEntitlementsPlist(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size == 0 ? Data() : Data(bytes: data!, count: size)
    if let entitlements = try? Entitlements(plistData: bytes, source: "fuzz") {
        _ = entitlements.warnings
    }
    return 0
}
