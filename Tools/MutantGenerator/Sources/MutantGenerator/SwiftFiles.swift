import Foundation

/// The Swift source files a path names, relative to the root, sorted.
enum SwiftFiles {
    /// `path` itself when it is a file; otherwise every `.swift` file below it, skipping folders
    /// named `Generated` (code written by a generator, not by hand).
    static func under(_ path: String, root: URL) -> [String] {
        let base = root.appendingPathComponent(path)
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: base.path, isDirectory: &isFolder) else { return [] }
        guard isFolder.boolValue else { return path.hasSuffix(".swift") ? [path] : [] }
        guard let walker = FileManager.default.enumerator(atPath: base.path) else { return [] }
        var files: [String] = []
        for case let relative as String in walker {
            let components = relative.split(separator: "/")
            if components.contains("Generated") || !relative.hasSuffix(".swift") { continue }
            files.append(path + "/" + relative)
        }
        return files.sorted()
    }
}
