import Foundation
import SharedWebCredentials
import ZIPFoundation

/// A 1Password 1PUX file: a zip holding `export.attributes`, `export.data` (the JSON of every
/// account, vault and item) and attached files, which are not imported.
enum OnePUXArchive {
    /// `export.data`, parsed; read from the archive into memory only, never to a temporary file.
    static func exportData(at path: String) throws -> Any {
        let archive: Archive
        do {
            archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .read)
        } catch {
            throw SharedWebCredentialsError(
                .invalidInput,
                "\(path) is not a readable zip archive (a 1PUX file is one); it may be truncated: export it again")
        }
        guard let entry = archive["export.data"] else {
            throw SharedWebCredentialsError(.invalidInput, "\(path) has no export.data, so it is not a 1PUX export")
        }
        var data = Data()
        do {
            _ = try archive.extract(entry, skipCRC32: false) { data.append($0) }
        } catch {
            throw SharedWebCredentialsError(
                .invalidInput,
                "export.data in \(path) could not be unpacked (the archive is damaged or truncated): export it again")
        }
        return try ImportFiles.parseJSON(data, what: "export.data in \(path)")
    }
}
