import Foundation

/// The password for a store URL, from where libpq's users keep it: a file named by
/// `--store-password-file` (the password alone, one trailing newline ignored), else the password
/// file `PGPASSFILE` names, else `~/.pgpass` (lines `host:port:database:user:password`, `*`
/// matching anything, `\:` and `\\` escaped). None: connect without one (peer or trust
/// authentication on a Unix socket). A password file others can read is refused, as libpq does.
public enum PostgresPassword {
    /// The password for `url`, or nil when no file gives one.
    public static func resolve(
        for url: PostgresStoreURL, passwordFile: String?,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> String? {
        if let passwordFile {
            var text = try read(passwordFile, what: "--store-password-file")
            if text.hasSuffix("\n") { text.removeLast() }
            if text.hasSuffix("\r") { text.removeLast() }
            return text
        }
        let path: String
        if let named = environment["PGPASSFILE"], !named.isEmpty {
            path = named
        } else if let home = environment["HOME"], FileManager.default.fileExists(atPath: home + "/.pgpass") {
            path = home + "/.pgpass"
        } else {
            return nil
        }
        let host = url.socketDirectory ?? url.host ?? ""
        for line in try read(path, what: "PGPASSFILE").split(whereSeparator: \.isNewline) where !line.hasPrefix("#") {
            let fields = split(String(line))
            guard fields.count == 5 else { continue }
            let wanted = [host, String(url.port), url.database, url.user]
            let matches = zip(fields.prefix(4), wanted).enumerated().allSatisfy { index, pair in
                pair.0 == "*" || pair.0 == pair.1 || (index == 0 && url.socketDirectory != nil && pair.0 == "localhost")
            }
            if matches { return fields[4] }
        }
        return nil
    }

    /// The fields of one password-file line: split at unescaped colons, escapes removed.
    private static func split(_ line: String) -> [String] {
        var fields: [String] = [""]
        var escaped = false
        for character in line {
            if escaped {
                fields[fields.count - 1].append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == ":" && fields.count < 5 {
                fields.append("")
            } else {
                fields[fields.count - 1].append(character)
            }
        }
        return fields
    }

    private static func read(_ path: String, what: String) throws -> String {
        var info = stat()
        guard stat(path, &info) == 0, let data = FileManager.default.contents(atPath: path),
            let text = String(data: data, encoding: .utf8)
        else {
            throw SharedWebCredentialsError(.invalidInput, "Cannot read the password file \(path) (\(what)).")
        }
        guard info.st_mode & 0o077 == 0 else {
            throw SharedWebCredentialsError(
                .invalidInput,
                "The password file \(path) (\(what)) can be read by other users: chmod 600 it, then try again.")
        }
        return text
    }
}
