/// Reads the `applinks` section of an apple-app-site-association file into an
/// ``ApplinksConfiguration`` and reports pattern problems as warnings (Apple skips what it cannot
/// use; a bad universal-link pattern never breaks the other services of the file).
///
/// Structural problems that ``AASAParser`` already reports (`applinks` or `details` of the wrong
/// type, an entry naming no app) are not repeated here.
public enum ApplinksParser {
    /// Parses the `applinks` section of a file's bytes; nil when the bytes are not a JSON object
    /// (``AASAParser/check(_:contentType:path:)`` says why).
    public static func parse(_ bytes: [UInt8]) -> ApplinksConfiguration? {
        guard !bytes.starts(with: [0xEF, 0xBB, 0xBF]), String(validating: bytes, as: UTF8.self) != nil,
            let root = try? StrictJSONParser.parse(bytes).value, case .object = root
        else { return nil }
        return parse(root: root)
    }

    /// Parses the `applinks` member of a file's top-level object.
    public static func parse(root: JSONValue) -> ApplinksConfiguration {
        var reader = Reader()
        guard let applinks = root["applinks"], case .object(let members) = applinks else { return reader.result }
        reader.unknownKeys(members, known: ["apps", "details", "defaults", "substitutionVariables"], at: "applinks")
        reader.result.defaults = reader.options(applinks["defaults"], at: "applinks.defaults")
        reader.readVariables(applinks["substitutionVariables"])
        if case .array(let entries) = applinks["details"] {
            for (index, entry) in entries.enumerated() {
                guard case .object(let entryMembers) = entry else { continue }
                reader.readEntry(entry, members: entryMembers, index: index)
            }
        }
        reader.checkPatterns()
        return reader.result
    }

    private struct Reader {
        var result = ApplinksConfiguration()

        mutating func warn(_ code: String, _ message: String) {
            result.diagnostics.append(.warning(code, message))
        }

        mutating func unknownKeys(_ members: [(key: String, value: JSONValue)], known: [String], at place: String) {
            for (key, _) in members where !known.contains(key) {
                var message = "\(place) has the unknown key \(jsonString(key)); Apple ignores it"
                if let meant = known.first(where: { $0.lowercased() == key.lowercased() }) {
                    message += " (keys are case-sensitive: write \(jsonString(meant)))"
                } else {
                    message += " (known keys: \(known.map(jsonString).joined(separator: ", ")))"
                }
                warn("applinks-unknown-key", message)
            }
        }

        mutating func boolean(_ value: JSONValue?, at place: String) -> Bool? {
            guard let value else { return nil }
            guard case .bool(let flag) = value else {
                warn(
                    "applinks-not-boolean", "\(place) is \(value.typeName); it must be true or false, so it is ignored")
                return nil
            }
            return flag
        }

        mutating func string(_ value: JSONValue?, at place: String) -> String? {
            guard let value else { return nil }
            guard case .string(let text) = value else {
                warn(
                    "applinks-pattern-not-string",
                    "\(place) is \(value.typeName); it must be a string, so it is ignored")
                return nil
            }
            return text
        }

        mutating func options(_ value: JSONValue?, at place: String) -> ApplinksConfiguration.MatchOptions {
            guard let value else { return .init() }
            guard case .object(let members) = value else {
                warn(
                    "applinks-defaults-not-object",
                    "\(place) is \(value.typeName); it must be an object, so it is ignored")
                return .init()
            }
            unknownKeys(members, known: ["caseSensitive", "percentEncoded"], at: place)
            return .init(
                caseSensitive: boolean(value["caseSensitive"], at: "\(place).caseSensitive"),
                percentEncoded: boolean(value["percentEncoded"], at: "\(place).percentEncoded"))
        }

        mutating func readVariables(_ value: JSONValue?) {
            guard let value else { return }
            let place = "applinks.substitutionVariables"
            guard case .object(let members) = value else {
                warn(
                    "applinks-variables-not-object",
                    "\(place) is \(value.typeName); it must be an object of string arrays")
                return
            }
            for (name, list) in members {
                let at = "\(place).\(name)"
                if name.contains(where: { "$()".contains($0) }) {
                    warn(
                        "applinks-variable-name", "\(at): a variable name may not contain $, ( or ); it cannot be used")
                    continue
                }
                guard case .array(let items) = list else {
                    warn("applinks-variable-not-array", "\(at) is \(list.typeName); it must be an array of strings")
                    continue
                }
                var values: [String] = []
                for (index, item) in items.enumerated() {
                    guard case .string(let text) = item else {
                        warn(
                            "applinks-variable-not-string", "\(at)[\(index)] is \(item.typeName), not a string; ignored"
                        )
                        continue
                    }
                    if text.contains("$(") {
                        warn(
                            "applinks-variable-in-variable",
                            "\(at)[\(index)] \(jsonString(text)) uses another variable; values may hold * and ? only, so $( is taken literally"
                        )
                    }
                    values.append(text)
                }
                if values.isEmpty {
                    warn("applinks-variable-empty", "\(at) has no values, so a pattern using it never matches")
                }
                if SubstitutionVariables.predefined(name) != nil {
                    warn("applinks-variable-shadows-predefined", "\(at) replaces Apple's predefined $(\(name))")
                }
                result.variables.custom[name] = values
            }
        }

        mutating func readEntry(_ entry: JSONValue, members: [(key: String, value: JSONValue)], index: Int) {
            let place = "applinks.details[\(index)]"
            unknownKeys(members, known: ["appID", "appIDs", "paths", "components", "defaults"], at: place)
            var appIDs: [String] = []
            if case .array(let items) = entry["appIDs"] {
                appIDs = items.compactMap { if case .string(let s) = $0 { s } else { nil } }
            }
            if case .string(let single) = entry["appID"] { appIDs.append(single) }
            var parsed = ApplinksConfiguration.Entry(
                index: index, appIDs: appIDs, defaults: options(entry["defaults"], at: "\(place).defaults"),
                form: .none, rules: [])
            if let components = entry["components"] {
                if entry["paths"] != nil {
                    warn(
                        "applinks-paths-ignored",
                        "\(place) has both components and paths; iOS 13 and later use components and ignore paths")
                }
                parsed.form = .components
                guard case .array(let items) = components else {
                    warn(
                        "applinks-components-not-array",
                        "\(place).components is \(components.typeName); it must be an array")
                    result.details.append(parsed)
                    return
                }
                for (ruleIndex, item) in items.enumerated() {
                    if let rule = component(item, index: ruleIndex, at: "\(place).components[\(ruleIndex)]") {
                        parsed.rules.append(rule)
                    }
                }
            } else if let paths = entry["paths"] {
                parsed.form = .paths
                guard case .array(let items) = paths else {
                    warn(
                        "applinks-paths-not-array",
                        "\(place).paths is \(paths.typeName); it must be an array of strings")
                    result.details.append(parsed)
                    return
                }
                for (ruleIndex, item) in items.enumerated() {
                    guard let text = string(item, at: "\(place).paths[\(ruleIndex)]") else { continue }
                    let excluded = text.hasPrefix("NOT ")
                    parsed.rules.append(
                        .init(
                            index: ruleIndex, path: excluded ? String(text.dropFirst(4)) : text, exclude: excluded,
                            text: text))
                }
            } else {
                warn("applinks-detail-no-patterns", "\(place) has neither components nor paths, so it matches no URL")
            }
            result.details.append(parsed)
        }

        mutating func component(_ item: JSONValue, index: Int, at place: String) -> ApplinksConfiguration.Rule? {
            guard case .object(let members) = item else {
                warn(
                    "applinks-component-not-object",
                    "\(place) is \(item.typeName); it must be an object, so it is skipped")
                return nil
            }
            unknownKeys(
                members, known: ["/", "?", "#", "exclude", "caseSensitive", "percentEncoded", "comment"], at: place)
            var rule = ApplinksConfiguration.Rule(index: index, text: "")
            rule.path = string(item["/"], at: "\(place)[\"/\"]")
            rule.fragment = string(item["#"], at: "\(place)[\"#\"]")
            switch item["?"] {
            case .string(let text): rule.query = .string(text)
            case .object(let items):
                rule.query = .items(
                    items.compactMap { name, value in
                        string(value, at: "\(place)[\"?\"][\(jsonString(name))]").map {
                            ApplinksConfiguration.QueryItemPattern(name: name, pattern: $0)
                        }
                    })
            case .some(let other):
                warn(
                    "applinks-query-not-string-or-object",
                    "\(place)[\"?\"] is \(other.typeName); it must be a string or an object of query items, so it is ignored"
                )
            case nil: break
            }
            rule.exclude = boolean(item["exclude"], at: "\(place).exclude") ?? false
            rule.options = .init(
                caseSensitive: boolean(item["caseSensitive"], at: "\(place).caseSensitive"),
                percentEncoded: boolean(item["percentEncoded"], at: "\(place).percentEncoded"))
            if case .string(let comment) = item["comment"] { rule.comment = comment }
            if rule.path == nil && rule.query == nil && rule.fragment == nil {
                warn(
                    "applinks-component-no-keys",
                    "\(place) gives none of \"/\", \"?\" or \"#\", so it matches every URL\(rule.exclude ? " and excludes them all" : "")"
                )
            }
            rule.text = Self.text(of: rule)
            return rule
        }

        static func text(of rule: ApplinksConfiguration.Rule) -> String {
            var parts: [String] = []
            if let path = rule.path { parts.append("\"/\": \(jsonString(path))") }
            switch rule.query {
            case .string(let text): parts.append("\"?\": \(jsonString(text))")
            case .items(let items):
                let inner = items.map { "\(jsonString($0.name)): \(jsonString($0.pattern))" }.joined(separator: ", ")
                parts.append("\"?\": {\(inner)}")
            case nil: break
            }
            if let fragment = rule.fragment { parts.append("\"#\": \(jsonString(fragment))") }
            if rule.exclude { parts.append("\"exclude\": true") }
            if let flag = rule.options.caseSensitive { parts.append("\"caseSensitive\": \(flag)") }
            if let flag = rule.options.percentEncoded { parts.append("\"percentEncoded\": \(flag)") }
            return "{" + parts.joined(separator: ", ") + "}"
        }

        /// Compiles every pattern with the options that apply to it and reports what cannot work.
        mutating func checkPatterns() {
            for entry in result.details {
                let container = entry.form == .paths ? "paths" : "components"
                for rule in entry.rules {
                    let place = "applinks.details[\(entry.index)].\(container)[\(rule.index)]"
                    let options = rule.options.over(entry.defaults).over(result.defaults)
                    var patterns: [(String, String)] = []
                    if let path = rule.path {
                        patterns.append((entry.form == .paths ? "" : "[\"/\"]", path))
                        if !path.isEmpty, !["/", "*", "?", "$"].contains(path.first!) {
                            warn(
                                "applinks-path-no-slash",
                                "\(place) path pattern \(jsonString(path)) does not start with /, so it matches no path; write \(jsonString("/" + path))"
                            )
                        }
                    }
                    switch rule.query {
                    case .string(let text): patterns.append(("[\"?\"]", text))
                    case .items(let items): patterns += items.map { ("[\"?\"][\(jsonString($0.name))]", $0.pattern) }
                    case nil: break
                    }
                    if let fragment = rule.fragment { patterns.append(("[\"#\"]", fragment)) }
                    for (key, pattern) in patterns { check(pattern, at: place + key, options: options) }
                }
            }
        }

        mutating func check(_ pattern: String, at place: String, options: ApplinksConfiguration.MatchOptions) {
            if pattern.isEmpty {
                warn("applinks-empty-pattern", "\(place) is an empty pattern: it matches only an empty component")
            }
            do throws(URLPattern.Problem) {
                _ = try URLPattern(pattern, variables: result.variables, caseSensitive: options.caseSensitive ?? true)
            } catch {
                switch error {
                case .undefinedVariable(let name):
                    warn(
                        "applinks-undefined-variable",
                        "\(place) uses $(\(name)), which is neither in applinks.substitutionVariables nor predefined; the pattern never matches"
                    )
                case .tooComplex(let states):
                    warn(
                        "applinks-pattern-too-complex",
                        "\(place) grows to more than \(URLPattern.maximumStates) states after substitution (\(states)); swcred does not match it"
                    )
                }
            }
            if let open = pattern.firstRange(of: "$("), !pattern[open.upperBound...].contains(")") {
                warn(
                    "applinks-unterminated-variable",
                    "\(place) has \"$(\" without a closing \")\"; it is taken literally")
            }
            if options.percentEncoded ?? true, let scalar = pattern.unicodeScalars.first(where: { !$0.isASCII }) {
                warn(
                    "applinks-unicode-pattern-encoded",
                    "\(place) holds U+\(String(scalar.value, radix: 16, uppercase: true)) but percentEncoded is true, so it never matches; set \"percentEncoded\": false or percent-encode it"
                )
            }
        }
    }
}

/// `text` as a JSON string literal, for messages and pattern texts.
func jsonString(_ text: String) -> String {
    var result = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": result += "\\\""
        case "\\": result += "\\\\"
        case "\n": result += "\\n"
        case "\t": result += "\\t"
        case "\r": result += "\\r"
        default:
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                let hex = String(scalar.value, radix: 16, uppercase: false)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
    }
    return result + "\""
}
