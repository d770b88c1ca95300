import Foundation
import SharedWebCredentials
import ZIPFoundation

/// A 1Password 1PUX file: a zip holding `export.attributes`, `export.data` (the JSON of every
/// account, vault and item) and attached files, which are not imported.
enum OnePUXArchive {
    /// `export.data`, parsed; read from the archive into memory only, never to a temporary file.
    /// It may inflate to ``ImportFiles/maximumJSONBytes`` at most, counted while inflating (the
    /// size the zip's header claims is not trusted): past that the file is refused as it is read.
    static func exportData(at path: String, limit: Int = ImportFiles.maximumJSONBytes) throws -> Any {
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
            _ = try archive.extract(entry, skipCRC32: false) { chunk in
                guard data.count + chunk.count <= limit else { throw TooLarge() }
                data.append(chunk)
            }
        } catch is TooLarge {
            throw SharedWebCredentialsError(
                .invalidInput,
                "export.data in \(path) inflates to more than \(ImportFiles.describe(bytes: limit)), the most swcred unpacks from a 1PUX file (a real export's is a few MB): it is damaged or not an export; nothing was imported"
            )
        } catch {
            throw SharedWebCredentialsError(
                .invalidInput,
                "export.data in \(path) could not be unpacked (the archive is damaged or truncated): export it again")
        }
        return try ImportFiles.parseJSON(data, what: "export.data in \(path)")
    }

    private struct TooLarge: Error {}
}
