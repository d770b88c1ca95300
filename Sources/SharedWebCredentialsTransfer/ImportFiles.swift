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

    private static func readJSON(_ path: String) throws -> Any {
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
