/// A plain-text table for benchmark results: one row per measurement, with its budget and verdict.
public struct Report {
    private var rows: [[String]] = []
    private let header: [String]

    /// Creates a report with column titles.
    public init(columns: [String]) {
        header = columns
    }

    /// Adds a row; it must have as many cells as there are columns.
    public mutating func add(_ cells: [String]) {
        precondition(cells.count == header.count, "row has \(cells.count) cells, table has \(header.count) columns")
        rows.append(cells)
    }

    /// The table as Markdown, ready for README or a closing note.
    public func markdown() -> String {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            "| "
                + cells.enumerated().map { $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) }
                .joined(separator: " | ") + " |"
        }
        let rule = "|" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|"
        return ([line(header), rule] + rows.map(line)).joined(separator: "\n")
    }
}
