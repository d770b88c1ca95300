/// Reads apple-app-site-association files strictly (SPEC.md §3) and reports every mistake with a
import Foundation

/// stable code and a message that says what to fix.
public enum AASAParser {
    /// Checks a file's bytes.
    ///
    /// - Parameters:
    ///   - bytes: the body exactly as served or stored.
    ///   - contentType: the `Content-Type` it was served with, if it came over HTTP.
    ///   - path: the URL path or file name, for the `.json` extension hint.
    public static func check(_ bytes: [UInt8], contentType: String? = nil, path: String? = nil) -> AASAReport {
        var diagnostics: [AASADiagnostic] = []
        if let path, path.lowercased().hasSuffix(".json") {
            diagnostics.append(
                .warning(
                    "json-extension",
                    "the file name ends in .json; Apple fetches /.well-known/apple-app-site-association with no extension"
                ))
        }
        let mediaType = contentType?.split(separator: ";").first.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
        if isSignedLegacy(bytes, mediaType: mediaType) {
            diagnostics.append(
                .error(
                    "signed-legacy",
                    "signed legacy format (CMS/PKCS#7, iOS 8 era): a signed file approves nothing here; serve the plain JSON file unsigned"
                ))
            return AASAReport(document: nil, diagnostics: diagnostics)
        }
        if let mediaType, mediaType != "application/json" {
            diagnostics.append(
                .warning(
                    "content-type",
                    "served as \(mediaType); serve it as application/json (Apple does not insist, other clients may)"))
        }
        if bytes.count > AASAReport.maximumSize {
            diagnostics.append(
                .error(
                    "too-large",
                    "the file is larger than 128 KiB (\(AASAReport.maximumSize) bytes); Apple ignores it, make it smaller"
                ))
            return AASAReport(document: nil, diagnostics: diagnostics)
        }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) || bytes.starts(with: [0xFE, 0xFF])
            || bytes.starts(with: [0xFF, 0xFE])
        {
            diagnostics.append(
                .error("bom", "the file starts with a byte-order mark; save it as UTF-8 without a BOM"))
            return AASAReport(document: nil, diagnostics: diagnostics)
        }
        guard String(validating: bytes, as: UTF8.self) != nil else {
            diagnostics.append(.error("not-utf8", "the file is not valid UTF-8; save it as UTF-8"))
            return AASAReport(document: nil, diagnostics: diagnostics)
        }
        let root: JSONValue
        do {
            let parsed = try StrictJSONParser.parse(bytes)
            root = parsed.value
            diagnostics += parsed.duplicates.map { .warning($0.code, $0.message) }
        } catch {
            diagnostics.append(.error(error.code, error.message))
            return AASAReport(document: nil, diagnostics: diagnostics)
        }
        guard case .object = root else {
            diagnostics.append(
                .error(
                    "top-level-not-object",
                    "the top level is \(root.typeName); it must be an object such as {\"webcredentials\": {\"apps\": [...]}}"
                ))
            return AASAReport(document: nil, diagnostics: diagnostics)
        }
        var document = AASADocument()
        readWebcredentials(root["webcredentials"], into: &document, diagnostics: &diagnostics)
        readApplinks(root["applinks"], into: &document, diagnostics: &diagnostics)
        if root["webcredentials"] == nil {
            document.misplacedWebcredentials = findMisplacedWebcredentials(in: root)
        }
        if let path = document.misplacedWebcredentials {
            diagnostics.append(
                .warning(
                    "webcredentials-misplaced",
                    "\"webcredentials\" is nested in \(path), where iOS ignores it; move it to the top level of the file, beside \"applinks\""
                ))
        }
        document.appclipsApps = strings(root["appclips"]?["apps"])
        document.activityContinuationApps = strings(root["activitycontinuation"]?["apps"])
        let hasErrors = diagnostics.contains { $0.severity == .error }
        return AASAReport(document: hasErrors ? nil : document, diagnostics: diagnostics)
    }

    private static func isSignedLegacy(_ bytes: [UInt8], mediaType: String?) -> Bool {
        if mediaType == "application/pkcs7-mime" || mediaType == "application/pkcs7-signature" { return true }
        // DER SEQUENCE holding the PKCS#7 signedData OID 1.2.840.113549.1.7.2.
        let signedDataOID: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02]
        guard bytes.first == 0x30 else { return false }
        let head = Array(bytes.prefix(64))
        return head.count >= signedDataOID.count
            && (0...(head.count - signedDataOID.count)).contains {
                Array(head[$0..<$0 + signedDataOID.count]) == signedDataOID
            }
    }

    private static func strings(_ value: JSONValue?) -> [String] {
        guard case .array(let items) = value else { return [] }
        return items.compactMap { if case .string(let s) = $0 { s } else { nil } }
    }

    private static func readWebcredentials(
        _ value: JSONValue?, into document: inout AASADocument, diagnostics: inout [AASADiagnostic]
    ) {
        guard let value else { return }
        guard case .object = value else {
            diagnostics.append(
                .error(
                    "webcredentials-not-object",
                    "\"webcredentials\" is \(value.typeName); it must be an object: {\"apps\": [\"TEAMID.bundle.id\"]}")
            )
            return
        }
        document.hasWebcredentials = true
        for key in ["appIDs", "details"] where value[key] != nil {
            diagnostics.append(
                .warning(
                    "webcredentials-\(key.lowercased())-ignored",
                    "webcredentials.\(key) is ignored (it belongs to applinks); list app IDs in webcredentials.apps"))
        }
        guard let apps = value["apps"] else {
            diagnostics.append(
                .error("apps-missing", "webcredentials has no \"apps\" array; add \"apps\": [\"TEAMID.bundle.id\"]"))
            return
        }
        guard case .array(let items) = apps else {
            diagnostics.append(
                .error(
                    "apps-not-array",
                    "webcredentials.apps is \(apps.typeName); it must be an array of strings such as [\"ABCDE12345.com.example.app\"]"
                ))
            return
        }
        for (index, item) in items.enumerated() {
            guard case .string(let name) = item else {
                diagnostics.append(
                    .warning(
                        "app-not-string",
                        "webcredentials.apps[\(index)] is \(item.typeName), not a string; it is ignored"))
                continue
            }
            if checkAppID(name, at: "webcredentials.apps[\(index)]", diagnostics: &diagnostics) {
                document.webcredentialsApps.append(name)
            }
        }
    }

    private static func readApplinks(
        _ value: JSONValue?, into document: inout AASADocument, diagnostics: inout [AASADiagnostic]
    ) {
        guard let value else { return }
        guard case .object = value else {
            diagnostics.append(
                .warning("applinks-not-object", "\"applinks\" is \(value.typeName); it must be an object"))
            return
        }
        if value["apps"] != nil {
            let legacy = strings(value["apps"])
            document.applinksLegacyApps = legacy
            if !legacy.isEmpty {
                diagnostics.append(
                    .warning(
                        "applinks-apps-not-empty",
                        "applinks.apps lists \(legacy.count == 1 ? "an app" : "\(legacy.count) apps"), but iOS reads no apps there (the key is a legacy one that must be an empty array); list them as appIDs in applinks.details"
                    ))
            }
        }
        guard let details = value["details"] else { return }
        guard case .array(let items) = details else {
            diagnostics.append(
                .warning("applinks-details-not-array", "applinks.details is \(details.typeName); it must be an array"))
            return
        }
        for (index, item) in items.enumerated() {
            guard case .object = item else {
                diagnostics.append(
                    .warning(
                        "applinks-detail-not-object", "applinks.details[\(index)] is \(item.typeName), not an object"))
                continue
            }
            var named: [(String, String)] = strings(item["appIDs"]).enumerated().map {
                ($1, "applinks.details[\(index)].appIDs[\($0)]")
            }
            if case .string(let single) = item["appID"] { named.append((single, "applinks.details[\(index)].appID")) }
            let appIDs = named.filter { checkAppID($0.0, at: $0.1, diagnostics: &diagnostics) }.map(\.0)
            if item["appIDs"] != nil && item["appID"] == nil && item["paths"] != nil && item["components"] == nil {
                diagnostics.append(
                    .warning(
                        "appids-with-paths",
                        "applinks.details[\(index)] lists apps in \"appIDs\" (iOS 13 and later) beside legacy \"paths\": iOS 12 and earlier read only \"appID\" and ignore this entry; add \"appID\" for them, or use \"components\" if only iOS 13 and later matter"
                    ))
            }
            if appIDs.isEmpty {
                diagnostics.append(
                    .warning("applinks-detail-no-app", "applinks.details[\(index)] names no app (appID or appIDs)"))
            }
            var patterns = ApplinksDetail.Patterns.none
            if case .array(let components) = item["components"] {
                patterns = .components(
                    components.map { component in
                        ApplinksDetail.Component(
                            path: component["/"].flatMap(stringValue),
                            query: component["?"].flatMap(queryText),
                            fragment: component["#"].flatMap(stringValue),
                            exclude: component["exclude"] == .bool(true),
                            comment: component["comment"].flatMap(stringValue))
                    })
            } else if item["paths"] != nil {
                patterns = .paths(strings(item["paths"]))
            }
            document.applinks.append(ApplinksDetail(appIDs: appIDs, patterns: patterns))
        }
    }

    /// Checks one listed app ID: a non-ASCII one is ignored (app IDs are ASCII, and Unicode case
    /// rules would let `ſ` stand for `S`); an invalid ASCII one is kept, since a lower-case
    /// prefix still names its app, with a warning. Returns whether to keep it.
    private static func checkAppID(_ name: String, at path: String, diagnostics: inout [AASADiagnostic]) -> Bool {
        if let scalar = name.firstNonASCIIScalar {
            diagnostics.append(
                .warning(
                    "app-id-not-ascii",
                    "\(path) \"\(name)\" contains \(scalar.codePointDescription); app IDs are ASCII, so this entry names no app and is ignored: type it again in plain ASCII"
                ))
            return false
        }
        do {
            if try ApplicationIdentifier(name).platform == .android {
                diagnostics.append(
                    .warning(
                        "app-id-invalid",
                        "\(path) \"\(name)\" is an Android app, which an apple-app-site-association file cannot approve: list it in /.well-known/assetlinks.json instead"
                    ))
            }
        } catch {
            let problem = (error as? SharedWebCredentialsError)?.message ?? "\(error)"
            diagnostics.append(.warning("app-id-invalid", "\(path): \(problem)"))
        }
        return true
    }

    /// Where a `webcredentials` object sits one level too deep (in `applinks`, or in an
    /// `applinks.details` entry), as a path for messages; nil if nowhere.
    private static func findMisplacedWebcredentials(in root: JSONValue) -> String? {
        guard case .object(let members) = root else { return nil }
        for (key, value) in members {
            if value["webcredentials"] != nil { return key }
            if case .array(let items) = value["details"] {
                for (index, item) in items.enumerated() where item["webcredentials"] != nil {
                    return "\(key).details[\(index)]"
                }
            }
        }
        return nil
    }

    private static func stringValue(_ value: JSONValue) -> String? {
        if case .string(let s) = value { s } else { nil }
    }

    private static func queryText(_ value: JSONValue) -> String? {
        switch value {
        case .string(let s): return s
        case .object(let members):
            return members.map { "\($0.key)=\(stringValue($0.value) ?? $0.value.typeName)" }.joined(separator: "&")
        default: return nil
        }
    }
}
