import CSV
import Foundation
import SharedWebCredentials

/// Reads a CSV export row by row from the file (CSV.swift over a file stream), so that memory
/// stays flat whatever the file's size. Rows are numbered as a spreadsheet shows them: the
/// header is row 1.
final class CSVImportReader: ImportReader {
    let format: ImportFormat
    private let stream: CountingInputStream
    private let reader: CSVReader
    private let header: [String]
    private let columns: CSVColumns

    /// Opens `path` and reads its header; detects the format from it when `format` is nil.
    init(path: String, format: ImportFormat?) throws {
        guard
            let stream = CountingInputStream(
                path: path,
                fieldLimit: CountingInputStream.fieldLimit(forMaximumFieldBytes: Credential.maximumFieldBytes))
        else { throw ImportFile.unreadable(path) }
        do {
            reader = try CSVReader(stream: stream, hasHeaderRow: true)
        } catch {
            throw SharedWebCredentialsError(.invalidInput, "\(path) has no CSV header row (\(error)); is it empty?")
        }
        let header = reader.headerRow ?? []
        guard let chosen = format ?? CSVColumns.detect(header: header) else {
            throw SharedWebCredentialsError(
                .invalidInput,
                "the header of \(path) matches no format swcred imports (it is: \(header.joined(separator: ","))); name the format with --format"
            )
        }
        self.stream = stream
        self.header = header
        self.format = chosen
        self.columns = try CSVColumns(header: header, format: chosen)
    }

    var bytesRead: Int { stream.bytesRead }

    /// Rows short of optional fields, read with them empty: their numbers, and the fewest fields
    /// one had.
    private var shortRows: [Int] = []
    private var fewestFields = Int.max

    var warnings: [String] {
        guard !shortRows.isEmpty else { return [] }
        let missing = header[fewestFields...].map { "\"\($0)\"" }.joined(separator: ", ")
        let rows = shortRows.prefix(10).map(String.init).joined(separator: ", ") + (shortRows.count > 10 ? ", …" : "")
        return [
            "\(shortRows.count) \(shortRows.count == 1 ? "row has" : "rows have") fewer fields than the header's \(header.count) (row\(shortRows.count == 1 ? "" : "s") \(rows)): the missing optional fields (\(missing)) were read as empty"
        ]
    }

    /// Calls `body` with each row; the last row is held back until the end of the file is
    /// reached, so that a file cut off inside a quoted field, or inside a row, reports that row as
    /// invalid.
    func forEach(_ body: (ImportElement) throws -> Void) throws {
        var number = 1
        var pending: (number: Int, fields: [String])?
        while let fields = reader.next() {
            if let error = reader.error { throw ImportFile.readFailure(error) }
            number += 1
            if fields == [""] { continue }  // a blank line
            if let pending { try body(element(pending.fields, number: pending.number, cutOff: false)) }
            pending = (number, fields)
        }
        if let error = reader.error { throw ImportFile.readFailure(error) }
        guard let pending else { return }
        if stream.quoteCount % 2 == 1 {
            try body(
                .invalid(
                    location: "row \(pending.number)",
                    problem: "the file ends inside a quoted field: it is truncated (export it again)"))
        } else {
            // Only the last row can have been cut off by truncation, and only when no line break
            // follows it.
            try body(element(pending.fields, number: pending.number, cutOff: !stream.endsWithLineBreak))
        }
    }

    /// The element for one row. A row with fewer fields than the header is read with the missing
    /// ones empty when they are all optional (not the URL, username, password or type) and it was
    /// not cut off (a last row with no line break after it); otherwise it is invalid.
    private func element(_ fields: [String], number: Int, cutOff: Bool) -> ImportElement {
        let location = "row \(number)"
        var fields = fields
        if fields.count != header.count {
            let required = [columns.url, columns.username, columns.password] + (columns.type.map { [$0] } ?? [])
            guard fields.count < header.count, !cutOff, required.allSatisfy({ $0 < fields.count }) else {
                let why =
                    fields.count > header.count
                    ? "an unquoted comma?"
                    : cutOff
                        ? "a truncated row: the file ends inside it"
                        : "the missing ones include a required field: \(required.filter { $0 >= fields.count }.map { "\"\(header[$0])\"" }.joined(separator: ", "))"
                // A row cut at the stream's field count had that many or more.
                let count =
                    fields.count < CountingInputStream.rowFieldLimit ? "\(fields.count)" : "\(fields.count) or more"
                return .invalid(
                    location: location, problem: "it has \(count) fields where the header has \(header.count) (\(why))")
            }
            shortRows.append(number)
            fewestFields = min(fewestFields, fields.count)
            fields += Array(repeating: "", count: header.count - fields.count)
        }
        if let index = fields.firstIndex(where: { $0.utf8.count > Credential.maximumFieldBytes }) {
            return .invalid(
                location: location,
                problem:
                    "its \"\(header[index])\" field is longer than the vault's limit of \(Credential.maximumFieldBytes) bytes (16 KiB) per field"
            )
        }
        func field(_ index: Int?) -> String { index.map { fields[$0] } ?? "" }
        if let type = columns.type, !fields[type].isEmpty, fields[type].lowercased() != "login" {
            return .skipped(location: location, reason: .notALogin(type: fields[type]))
        }
        let created: Date?
        let modified: Date?
        do {
            created = try ImportTime.parse(
                field(columns.created), format: columns.timeFormat, field: "the created time")
            modified = try ImportTime.parse(
                field(columns.modified), format: columns.timeFormat, field: "the modified time")
        } catch {
            return .invalid(location: location, problem: error.problem)
        }
        let account = fields[columns.username]
        let urls =
            format == .bitwardenCSV
            ? fields[columns.url].split(separator: ",").map(\.trimmedOfSpaces)
            : [fields[columns.url]]
        return .entry(
            ImportEntry(
                location: location, urls: urls.filter { !$0.isEmpty }, account: account,
                password: fields[columns.password],
                details: CredentialDetails(
                    label: field(columns.title), notes: field(columns.notes),
                    otpAuth: OTPAuth.uri(field(columns.otpAuth), account: account)),
                created: created, modified: modified))
    }
}
