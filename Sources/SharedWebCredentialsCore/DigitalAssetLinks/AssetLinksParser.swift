import Foundation

/// Reads Digital Asset Links statement lists (`/.well-known/assetlinks.json`) strictly. A list
/// that is not a JSON array, or not JSON, is an error; a malformed statement in it is skipped
/// with a warning and the rest of the list still counts.
public enum AssetLinksParser {
    /// Checks a list's bytes.
    ///
    /// - Parameters:
    ///   - bytes: the body exactly as served or stored.
    ///   - contentType: the `Content-Type` it was served with, when it came over HTTP: Digital
    ///     Asset Links requires `application/json`, anything else is an error.
    ///   - source: the URL or file name, recorded in each statement.
    public static func check(_ bytes: [UInt8], contentType: String? = nil, source: String) -> AssetLinksReport {
        func failed(_ code: String, _ message: String) -> AssetLinksReport {
            AssetLinksReport(statements: [], includes: [], diagnostics: [.error(code, message)])
        }
        if let contentType {
            let mediaType = contentType.split(separator: ";").first.map {
                $0.trimmingCharacters(in: .whitespaces).lowercased()
            }
            guard mediaType == "application/json" else {
                return failed(
                    "content-type",
                    "\(source) was served as \(DisplayText.escaped(contentType)); Digital Asset Links requires Content-Type: application/json, so the list was not read"
                )
            }
        }
        if bytes.count > AssetLinksReport.maximumSize {
            return failed(
                "too-large",
                "\(source) is larger than 128 KiB (\(AssetLinksReport.maximumSize) bytes); make the list smaller or move statements into included files"
            )
        }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) || bytes.starts(with: [0xFE, 0xFF])
            || bytes.starts(with: [0xFF, 0xFE])
        {
            return failed("bom", "\(source) starts with a byte-order mark; save it as UTF-8 without a BOM")
        }
        guard String(validating: bytes, as: UTF8.self) != nil else {
            return failed("not-utf8", "\(source) is not valid UTF-8; save it as UTF-8")
        }
        let root: JSONValue
        var diagnostics: [AASADiagnostic] = []
        do {
            let parsed = try StrictJSONParser.parse(bytes)
            root = parsed.value
            diagnostics += parsed.duplicates.map { .warning($0.code, "\(source): \($0.message)") }
        } catch {
            return failed(error.code, "\(source): \(error.message)")
        }
        guard case .array(let items) = root else {
            return failed(
                "top-level-not-array",
                "the top level of \(source) is \(root.typeName); a statement list is a JSON array: [{\"relation\": [...], \"target\": {...}}]"
            )
        }
        if items.isEmpty {
            diagnostics.append(.warning("empty-list", "\(source) is an empty list: it approves nothing"))
        }
        var statements: [AssetStatement] = []
        var includes: [String] = []
        for (index, item) in items.enumerated() {
            var reader = StatementReader(path: "statement \(index + 1) of \(source)", source: source)
            switch reader.read(item) {
            case .statement(let statement): statements.append(statement)
            case .include(let url): includes.append(url)
            case .skipped: break
            }
            diagnostics += reader.diagnostics
        }
        return AssetLinksReport(statements: statements, includes: includes, diagnostics: diagnostics)
    }
}

/// Reads one element of a statement list.
private struct StatementReader {
    enum Outcome {
        case statement(AssetStatement)
        case include(String)
        case skipped
    }

    /// `statement N of SOURCE`, for messages.
    let path: String
    let source: String
    var diagnostics: [AASADiagnostic] = []

    init(path: String, source: String) {
        self.path = path
        self.source = source
    }

    mutating func read(_ value: JSONValue) -> Outcome {
        guard case .object(let members) = value else {
            return skip("statement-not-object", "is \(value.typeName); each statement is a JSON object")
        }
        if let include = value["include"] {
            let others = members.map(\.key).filter { $0 != "include" }
            guard others.isEmpty else {
                return skip(
                    "include-with-statement",
                    "has \"include\" beside \(others.map { "\"\($0)\"" }.joined(separator: ", ")); an include statement holds only \"include\""
                )
            }
            return readInclude(include)
        }
        guard let relationValue = value["relation"] else {
            return skip("relation-missing", "has no \"relation\" array")
        }
        guard case .array(let relationItems) = relationValue, !relationItems.isEmpty else {
            return skip(
                "relation-not-array", "\"relation\" is \(relationValue.typeName); it is a non-empty array of strings")
        }
        var relations: [String] = []
        for item in relationItems {
            guard case .string(let relation) = item, AssetRelation.isWellFormed(relation) else {
                let shown =
                    if case .string(let text) = item { "\"\(DisplayText.escaped(text))\"" } else { item.typeName }
                return skip(
                    "relation-malformed",
                    "has the relation \(shown), which is not a relation string KIND/DETAIL of a-z, 0-9, _ and . (such as \(AssetRelation.getLoginCredentials))"
                )
            }
            relations.append(relation)
        }
        guard let targetValue = value["target"] else { return skip("target-missing", "has no \"target\" object") }
        guard case .object = targetValue else {
            return skip(
                "target-not-object", "\"target\" is \(targetValue.typeName); it is an object with a \"namespace\"")
        }
        guard let target = readTarget(targetValue) else { return .skipped }
        return .statement(AssetStatement(relations: relations, target: target, source: source))
    }

    private mutating func readInclude(_ value: JSONValue) -> Outcome {
        guard case .string(let url) = value else {
            return skip("include-not-string", "\"include\" is \(value.typeName); it is the https: URL of another list")
        }
        let lowered = url.lowercased()
        if lowered.hasPrefix("http://") {
            return skip(
                "include-not-https",
                "includes \(DisplayText.escaped(url)) over plain HTTP; only https: includes are followed (an http: list could be changed by anyone on the network)"
            )
        }
        guard lowered.hasPrefix("https://"), let parsed = URL(string: url), parsed.host != nil else {
            return skip("include-invalid", "includes \"\(DisplayText.escaped(url))\", which is not an https: URL")
        }
        return .include(url)
    }

    private mutating func readTarget(_ target: JSONValue) -> AssetStatement.Target? {
        guard let namespaceValue = target["namespace"] else {
            skip("namespace-missing", "has a target without \"namespace\" (\"android_app\" or \"web\")")
            return nil
        }
        guard case .string(let namespace) = namespaceValue else {
            skip(
                "namespace-unknown",
                "has a target whose namespace is \(namespaceValue.typeName); use \"android_app\" or \"web\"")
            return nil
        }
        switch namespace {
        case "android_app": return readAndroidApp(target)
        case "web": return readWeb(target)
        default:
            skip(
                "namespace-unknown",
                "has the target namespace \"\(DisplayText.escaped(namespace))\"; swcred knows \"android_app\" and \"web\""
            )
            return nil
        }
    }

    private mutating func readAndroidApp(_ target: JSONValue) -> AssetStatement.Target? {
        guard case .string(let packageName) = target["package_name"] else {
            skip("package-name-missing", "has an android_app target without a \"package_name\" string")
            return nil
        }
        do {
            _ = try AndroidPackageName.validate(packageName)
        } catch {
            skip(
                "package-name-invalid",
                "has an android_app target with \((error as? SharedWebCredentialsError)?.message ?? "\(error)")")
            return nil
        }
        guard case .array(let items) = target["sha256_cert_fingerprints"], !items.isEmpty else {
            skip(
                "fingerprints-missing",
                "has an android_app target for \(packageName) without a non-empty \"sha256_cert_fingerprints\" array")
            return nil
        }
        var fingerprints: [CertificateFingerprint] = []
        for item in items {
            guard case .string(let text) = item else {
                skip(
                    "fingerprint-invalid",
                    "lists a fingerprint for \(packageName) that is \(item.typeName), not a string")
                return nil
            }
            do {
                fingerprints.append(try CertificateFingerprint(text))
            } catch {
                skip(
                    "fingerprint-invalid",
                    "lists for \(packageName) an \((error as? SharedWebCredentialsError)?.message ?? "\(error)")")
                return nil
            }
            if text != text.uppercased() {
                diagnostics.append(
                    .warning(
                        "fingerprint-lowercase",
                        "\(path) writes the fingerprint \(DisplayText.escaped(text)) in lower case; it is read as the same bytes, but the specification writes fingerprints upper-case and other clients may compare the text"
                    ))
            }
        }
        return .androidApp(packageName: packageName, fingerprints: fingerprints)
    }

    private mutating func readWeb(_ target: JSONValue) -> AssetStatement.Target? {
        guard case .string(let site) = target["site"] else {
            skip("site-missing", "has a web target without a \"site\" string")
            return nil
        }
        func invalid(_ problem: String) -> AssetStatement.Target? {
            skip(
                "site-invalid",
                "has the web target \"\(DisplayText.escaped(site))\": \(problem); write https://HOST[:PORT]")
            return nil
        }
        let lowered = site.lowercased()
        let isHTTPS = lowered.hasPrefix("https://")
        guard isHTTPS || lowered.hasPrefix("http://") else { return invalid("its scheme is not http: or https:") }
        var rest = Substring(site.dropFirst(isHTTPS ? 8 : 7))
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        if let bad = rest.first(where: { "/?#@".contains($0) }) {
            return invalid(
                "a site is a scheme and host only, with no \(bad == "@" ? "user name" : "path, query or fragment")")
        }
        let domain: DomainTarget
        do {
            domain = try DomainTarget(String(rest))
        } catch {
            return invalid((error as? SharedWebCredentialsError)?.message ?? "\(error)")
        }
        let defaultPort = isHTTPS ? 443 : 80
        if rest.hasSuffix(":\(defaultPort)") {
            return invalid("the default port \(defaultPort) must be omitted")
        }
        return .web(site: String(site.dropLast(site.hasSuffix("/") ? 1 : 0)), https: isHTTPS ? domain : nil)
    }

    @discardableResult
    private mutating func skip(_ code: String, _ problem: String) -> Outcome {
        diagnostics.append(.warning(code, "\(path) \(problem); the statement is skipped"))
        return .skipped
    }
}
