// Prints every mutant of the fixed operator set (see MutationOperator) for the Swift files under
// the given folders or files, one JSON object a line, in file and offset order.
//
//   MutantGenerator --root DIR PATH [PATH ...]
//
// PATH is relative to DIR. Folders named Generated are skipped. Used by `Scripts/mutants --generate`.
import Foundation
import SwiftParser
import SwiftSyntax

func usage(_ problem: String) -> Never {
    FileHandle.standardError.write(
        Data("MutantGenerator: \(problem)\nusage: MutantGenerator --root DIR PATH [PATH ...]\n".utf8))
    exit(2)
}

var arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 3, arguments[0] == "--root" else { usage("give --root DIR and at least one PATH") }
let root = URL(fileURLWithPath: arguments[1], isDirectory: true)
let paths = arguments.dropFirst(2)

var mutants: [Mutant] = []
for path in paths {
    let files = SwiftFiles.under(path, root: root)
    if files.isEmpty { usage("no Swift file under \(path)") }
    for file in files {
        guard let source = FileManager.default.contents(atPath: root.appendingPathComponent(file).path) else {
            usage("cannot read \(file)")
        }
        var found = MutationFinder.mutants(
            in: Parser.parse(source: String(decoding: source, as: UTF8.self)), file: file, folder: path)
        found.assignIDs()
        mutants += found
    }
}

let encoder = JSONEncoder()
encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
var output = Data()
for mutant in mutants {
    output += try encoder.encode(mutant)
    output += Data("\n".utf8)
}
FileHandle.standardOutput.write(output)
