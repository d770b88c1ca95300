import SharedWebCredentials

/// A progress bar on standard error for a long import: drawn only when standard error is a
/// terminal and the file is large (more than a few thousand rows).
final class ProgressBar {
    private let label: String
    private let totalBytes: Int
    private let isShown: Bool
    private var drawnPercent = -1

    /// Files above this size (about 5,000 rows of a typical export) get a bar.
    static let minimumBytes = 512 * 1024

    init(label: String, totalBytes: Int) {
        self.label = label
        self.totalBytes = totalBytes
        isShown = Terminal.errorIsTerminal && totalBytes > Self.minimumBytes
    }

    /// Redraws the bar for `read` bytes of `total`.
    func update(read: Int, total: Int) {
        guard isShown, total > 0 else { return }
        let percent = min(100, read * 100 / total)
        guard percent != drawnPercent else { return }
        drawnPercent = percent
        let filled = percent * 30 / 100
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: 30 - filled)
        Terminal.writeToStandardError("\r\(label) [\(bar)] \(percent)%")
    }

    /// Draws the bar full and ends its line, so that what follows starts on a line of its own.
    func finish() {
        guard isShown, drawnPercent >= 0 else { return }
        drawnPercent = 99
        update(read: totalBytes, total: totalBytes)
        Terminal.writeToStandardError("\n")
        drawnPercent = -1
    }
}
