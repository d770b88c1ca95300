/// A Smart App Banner: the `<meta name="apple-itunes-app" content="app-id=...">` tag of a page,
/// its fields, and what is wrong with them.
public struct SmartAppBanner: Sendable, Equatable {
    /// The most of a page swcred reads to look for the tag: 1 MiB (the tag belongs in `<head>`).
    public static let maximumPageSize = 1_048_576
    /// The fields Apple documents.
    public static let knownFields = [
        "app-id", "affiliate-data", "app-argument", "app-clip-bundle-id", "app-clip-display",
    ]

    /// The `content` attribute as written (references decoded).
    public let content: String
    /// The fields, in order (`name=value`, split at commas).
    public let fields: [(name: String, value: String)]
    /// The line of the page the tag is on.
    public let line: Int
    /// Findings about the tag and its fields.
    public let diagnostics: [AASADiagnostic]

    /// The value of field `name`, the first if it repeats.
    public subscript(name: String) -> String? { fields.first { $0.name == name }?.value }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.content == rhs.content && lhs.line == rhs.line && lhs.diagnostics == rhs.diagnostics
    }

    /// Finds the banner of `page` and checks its fields; nil when the page has no
    /// `apple-itunes-app` tag. `appclipsApps` are the app IDs the site's AASA file lists under
    /// `appclips`: an `app-clip-bundle-id` must be one of their bundle IDs.
    public static func find(in page: [UInt8], appclipsApps: [String]) -> SmartAppBanner? {
        let tags = MetaTagScanner.metaTags(in: page).filter { $0["name"]?.lowercased() == "apple-itunes-app" }
        guard let tag = tags.first else { return nil }
        var diagnostics: [AASADiagnostic] = []
        if tags.count > 1 {
            diagnostics.append(
                .warning(
                    "banner-duplicate",
                    "the page has \(tags.count) apple-itunes-app tags (lines \(tags.map { String($0.line) }.joined(separator: ", "))); Safari uses one, keep only the first"
                ))
        }
        if tag.isInBody {
            diagnostics.append(
                .warning(
                    "banner-not-in-head",
                    "the apple-itunes-app tag on line \(tag.line) is outside <head>; move it into <head>"))
        }
        let content = tag["content"] ?? ""
        var fields: [(name: String, value: String)] = []
        for part in content.split(separator: ",") {
            let item = part.trimmed(of: " \t\r\n")
            guard !item.isEmpty else { continue }
            guard let equals = item.firstIndex(of: "=") else {
                diagnostics.append(
                    .warning("banner-field-no-value", "the banner field \"\(item)\" has no \"=\"; write name=value"))
                continue
            }
            let name = String(item[..<equals]).trimmed(of: " \t\r\n")
            let value = String(item[item.index(after: equals)...]).trimmed(of: " \t\r\n")
            if fields.contains(where: { $0.name == name }) {
                diagnostics.append(
                    .warning(
                        "banner-field-repeated", "the banner field \(name) appears more than once; the first counts"))
                continue
            }
            fields.append((name, value))
        }
        diagnostics += validate(fields, appclipsApps: appclipsApps)
        return SmartAppBanner(content: content, fields: fields, line: tag.line, diagnostics: diagnostics)
    }

    private init(content: String, fields: [(name: String, value: String)], line: Int, diagnostics: [AASADiagnostic]) {
        self.content = content
        self.fields = fields
        self.line = line
        self.diagnostics = diagnostics
    }

    private static func validate(
        _ fields: [(name: String, value: String)], appclipsApps: [String]
    ) -> [AASADiagnostic] {
        var diagnostics: [AASADiagnostic] = []
        func value(_ name: String) -> String? { fields.first { $0.name == name }?.value }
        for field in fields where !knownFields.contains(field.name) {
            diagnostics.append(
                .warning(
                    "banner-unknown-field",
                    "the banner field \(field.name) is not one Apple documents (\(knownFields.joined(separator: ", "))); Safari ignores it"
                ))
        }
        switch value("app-id") {
        case nil, "":
            diagnostics.append(
                .error(
                    "banner-app-id-missing",
                    "the banner has no app-id; give the app's numeric App Store ID: app-id=123456789"))
        case let id?:
            if !id.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) }) {
                diagnostics.append(
                    .error(
                        "banner-app-id-not-numeric",
                        "app-id \"\(id)\" is not numeric; it is the App Store ID (the digits after id in the app's App Store URL), not a bundle ID"
                    ))
            }
        }
        if let argument = value("app-argument"), !isAbsoluteURL(argument) {
            diagnostics.append(
                .error(
                    "banner-app-argument-not-absolute",
                    "app-argument \"\(argument)\" is not an absolute URL; give one with a scheme, such as https://example.com/item/1"
                ))
        }
        if let clip = value("app-clip-bundle-id") {
            let listed = appclipsApps.compactMap { app in
                app.firstIndex(of: ".").map { String(app[app.index(after: $0)...]) }
            }
            if !listed.contains(clip) {
                diagnostics.append(
                    .error(
                        "banner-app-clip-not-listed",
                        "app-clip-bundle-id \(clip) is not listed under appclips.apps in the site's apple-app-site-association file\(listed.isEmpty ? " (it lists none)" : " (it lists \(listed.joined(separator: ", ")))"); add TEAMID.\(clip) there"
                    ))
            }
            if !clip.contains(".") || clip.hasSuffix(".") {
                diagnostics.append(
                    .error(
                        "banner-app-clip-not-child",
                        "app-clip-bundle-id \(clip) is not the child of an app's bundle ID; an App Clip's bundle ID is its app's bundle ID plus a suffix, such as com.example.app.Clip"
                    ))
            }
        }
        if let display = value("app-clip-display") {
            if display != "card" {
                diagnostics.append(
                    .warning(
                        "banner-app-clip-display",
                        "app-clip-display \"\(display)\" is not known; the only value is card"))
            }
            if value("app-clip-bundle-id") == nil {
                diagnostics.append(
                    .warning(
                        "banner-app-clip-display-alone", "app-clip-display has no effect without app-clip-bundle-id"))
            }
        }
        return diagnostics
    }

    /// Whether `text` starts with a URL scheme and a colon and has something after it.
    static func isAbsoluteURL(_ text: String) -> Bool {
        guard let colon = text.firstIndex(of: ":"), colon != text.startIndex,
            text.index(after: colon) != text.endIndex
        else { return false }
        let scheme = text[..<colon].unicodeScalars
        func isLetter(_ scalar: Unicode.Scalar) -> Bool { ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) }
        return isLetter(scheme.first!)
            && scheme.allSatisfy { isLetter($0) || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0) }
            && !text.contains(where: { $0 == " " || $0 == "\n" })
    }
}

extension StringProtocol {
    fileprivate func trimmed(of set: String) -> String {
        var slice = Substring(self)
        while let first = slice.first, set.contains(first) { slice = slice.dropFirst() }
        while let last = slice.last, set.contains(last) { slice = slice.dropLast() }
        return String(slice)
    }
}
