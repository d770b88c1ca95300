import Foundation
import SharedWebCredentials

/// A reader of one import file: it yields every row or item in order.
protocol ImportReader: AnyObject {
    /// The file's format (given, or detected).
    var format: ImportFormat { get }
    /// How much of the file has been read, for progress.
    var bytesRead: Int { get }
    /// Calls `body` with each row or item, in file order.
    func forEach(_ body: (ImportElement) throws -> Void) throws
    /// What the reader read leniently, once each, after ``forEach(_:)``: not errors, but worth
    /// knowing (rows short of optional fields).
    var warnings: [String] { get }
}

extension ImportReader {
    var warnings: [String] { [] }
}

/// Errors about the import file itself.
enum ImportFile {
    static func unreadable(_ path: String) -> SharedWebCredentialsError {
        SharedWebCredentialsError(.invalidInput, "cannot read \(path): check the path and its permissions")
    }

    static func readFailure(_ error: Error) -> SharedWebCredentialsError {
        SharedWebCredentialsError(
            .invalidInput, "the file could not be read as UTF-8 CSV (\(error)); nothing was imported")
    }
}
