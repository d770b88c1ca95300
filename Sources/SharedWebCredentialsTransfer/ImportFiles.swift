import Foundation
import SharedWebCredentials

/// Opens an import file with the reader for its format, detecting the format when none is
/// given: a zip is 1PUX, JSON is told apart by its structure, anything else is CSV, told apart
/// by its header.
enum ImportFiles {
    static func open(_ path: String, format: ImportFormat?) throws -> any ImportReader {
        if let format, format.isCSV { return try CSVImportReader(path: path, format: format) }
        switch format {
        case .some(.onePassword1PUX):
            return try JSONImportReader(format: .onePassword1PUX, json: OnePUXArchive.exportData(at: path), path: path)
        case .some(let format):
            return try JSONImportReader(format: format, json: readJSON(path), path: path)
        case .none:
            switch try container(of: path) {
            case .zip:
                return try JSONImportReader(
                    format: .onePassword1PUX, json: OnePUXArchive.exportData(at: path), path: path)
            case .json:
                let json = try readJSON(path)
                return try JSONImportReader(format: JSONImportReader.detect(json, path: path), json: json, path: path)
            case .text:
                return try CSVImportReader(path: path, format: nil)
            }
        }
    }

    private enum Container { case zip, json, text }

    /// What the file's first bytes say it is.
    private static func container(of path: String) throws -> Container {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw ImportFile.unreadable(path) }
        defer { try? handle.close() }
        var start = Array((try? handle.read(upToCount: 64)) ?? Data())
        if start.starts(with: [0x50, 0x4B, 0x03, 0x04]) { return .zip }
        if start.starts(with: [0xEF, 0xBB, 0xBF]) { start.removeFirst(3) }
        let first = start.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        return first == UInt8(ascii: "{") ? .json : .text
    }

    /// The most bytes of JSON an import reads (a Bitwarden or CXF file, or a 1PUX file's
    /// `export.data` once inflated): the JSON formats are parsed whole, so this bounds the memory
    /// an import takes. A real export of thousands of logins is a few MB.
    static let maximumJSONBytes = 64 * 1024 * 1024

    /// `bytes` in MiB, for messages.
    static func describe(bytes: Int) -> String { "\(bytes / (1024 * 1024)) MiB" }

    private static func readJSON(_ path: String) throws -> Any {
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        guard size <= maximumJSONBytes else {
            throw SharedWebCredentialsError(
                .invalidInput,
                "\(path) is \(size / (1024 * 1024)) MiB, more than the \(describe(bytes: maximumJSONBytes)) of JSON swcred reads (a real export is a few MB): it is not an export, or split it; nothing was imported"
            )
        }
        guard var data = FileManager.default.contents(atPath: path) else { throw ImportFile.unreadable(path) }
        if data.starts(with: [0xEF, 0xBB, 0xBF]) { data.removeFirst(3) }
        return try parseJSON(data, what: path)
    }

    /// Parses JSON, or fails naming `what` without quoting its content.
    static func parseJSON(_ data: Data, what: String) throws -> Any {
        do {
            return try JSONSerialization.jsonObject(with: data)
        } catch {
            throw SharedWebCredentialsError(
                .invalidInput, "\(what) is not valid JSON (it may be truncated): export it again; nothing was imported")
        }
    }
}
