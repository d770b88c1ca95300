import SharedWebCredentialsCore

/// libFuzzer entry point: any bytes, as the body of an apple-app-site-association file.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAASAParser(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    let report = AASAParser.check(
        bytes, contentType: "application/json", path: "/.well-known/apple-app-site-association")
    if let document = report.document { _ = document.webcredentialsApps.count }
    return 0
}
