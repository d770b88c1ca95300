// Import and export benchmarks (issue 14): the built `swcred` binary importing a 100,000-row
// Chrome CSV into a new vault (budget < 5 s) and exporting those 100,000 credentials to Apple
// CSV (budget < 3 s), each as a whole process with its wall time and peak resident memory
// (wait4's ru_maxrss). Beside them, when keepassxc-cli is installed, KeePassXC importing the
// same 100,000 entries from its XML export format (`keepassxc-cli import` reads only that).
// The vaults use a raw key file: the KDF is not what is measured.
import BenchmarkSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

// Usage: transfer-bench BIN_DIR [ROWS]   (default 100000)
let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: transfer-bench BIN_DIR [ROWS]\n".utf8))
    exit(2)
}
let swcred = arguments[1] + "/swcred"
let rows = arguments.count > 2 ? Int(arguments[2]) ?? 100_000 : 100_000
let rounds = 3
let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent(
    "transfer-bench-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

/// One finished process: wall seconds and peak resident memory in MiB.
struct Run {
    let seconds: Double
    let peakMiB: Double
}

/// Runs a program to completion (output to /dev/null, input from `input` if given) and returns
/// its wall time and peak RSS; fails if it exits non-zero.
func spawn(_ executable: String, _ arguments: [String], input: String? = nil) throws -> Run {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    var inputPath = "/dev/null"
    if let input {
        inputPath = path("stdin-\(UUID().uuidString)")
        try Data(input.utf8).write(to: URL(fileURLWithPath: inputPath))
    }
    posix_spawn_file_actions_addopen(&actions, 0, inputPath, O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, path("stderr.txt"), O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    let start = ContinuousClock.now
    guard posix_spawn(&pid, executable, &actions, nil, argv, environ) == 0 else {
        throw CommandFailure(description: "cannot start \(executable)")
    }
    var status: Int32 = 0
    var usage = rusage()
    _ = wait4(pid, &status, 0, &usage)
    let elapsed = seconds(ContinuousClock.now - start)
    guard status == 0 else {
        let stderr = (try? String(contentsOfFile: path("stderr.txt"), encoding: .utf8)) ?? ""
        throw CommandFailure(description: "\(executable) \(arguments.joined(separator: " ")) failed: \(stderr)")
    }
    return Run(seconds: elapsed, peakMiB: Double(usage.ru_maxrss) / 1024)
}

/// Writes `rows` distinct logins as Chrome writes its CSV, and as KeePass 2 XML.
func writeSamples() throws {
    var csv = "name,url,username,password,note\n"
    var xml = """
        <?xml version="1.0" encoding="utf-8" standalone="yes"?>
        <KeePassFile><Meta><Generator>transfer-bench</Generator><DatabaseName>bench</DatabaseName></Meta>
        <Root><Group><UUID>\(Data(repeating: 1, count: 16).base64EncodedString())</UUID><Name>Root</Name>

        """
    for index in 0..<rows {
        let password = "Pw-\(index)-\(UUID().uuidString.prefix(12))"
        csv += "host\(index).example,https://host\(index).example/login,user\(index)@example.com,\(password),\n"
        var uuid = UUID().uuid
        let id = withUnsafeBytes(of: &uuid) { Data($0) }.base64EncodedString()
        xml += """
            <Entry><UUID>\(id)</UUID><String><Key>Title</Key><Value>host\(index).example</Value></String>\
            <String><Key>UserName</Key><Value>user\(index)@example.com</Value></String>\
            <String><Key>Password</Key><Value>\(password)</Value></String>\
            <String><Key>URL</Key><Value>https://host\(index).example/login</Value></String></Entry>

            """
    }
    xml += "</Group></Root></KeePassFile>\n"
    try Data(csv.utf8).write(to: URL(fileURLWithPath: path("chrome.csv")))
    try Data(xml.utf8).write(to: URL(fileURLWithPath: path("keepass.xml")))
}

func median(_ runs: [Run]) -> Run {
    let sorted = runs.sorted { $0.seconds < $1.seconds }
    return sorted[sorted.count / 2]
}

try writeSamples()
let csvMiB =
    Double((try FileManager.default.attributesOfItem(atPath: path("chrome.csv"))[.size] as? Int) ?? 0) / 1_048_576
print("\(rows) rows: Chrome CSV \(String(format: "%.1f", csvMiB)) MiB")

var imports: [Run] = []
var exports: [Run] = []
for round in 0..<rounds {
    let vault = path("vault-\(round).sqlite")
    let key = path("key-\(round)")
    _ = try spawn(swcred, ["init", "--vault", vault, "--key-file", key])
    let access = ["--vault", vault, "--key-file", key]
    imports.append(try spawn(swcred, ["import", path("chrome.csv"), "--yes"] + access))
    exports.append(
        try spawn(
            swcred, ["export", "--format", "apple-csv", "--output", path("export-\(round).csv"), "--yes"] + access))
}
let exported = try String(contentsOfFile: path("export-0.csv"), encoding: .utf8)
precondition(exported.components(separatedBy: "\r\n").count == rows + 2, "the export has every credential")

var report = Report(columns: ["measurement (median of \(rounds))", "wall", "peak RSS", "budget", "verdict"])
let importRun = median(imports)
let exportRun = median(exports)
func cells(_ label: String, _ run: Run, budget: Double?) -> [String] {
    [
        label, String(format: "%.2f s", run.seconds), String(format: "%.0f MiB", run.peakMiB),
        budget.map { "< \(Int($0)) s" } ?? "-", budget.map { run.seconds < $0 ? "ok" : "OVER" } ?? "-",
    ]
}
report.add(cells("swcred import, \(rows)-row Chrome CSV", importRun, budget: rows == 100_000 ? 5 : nil))
report.add(cells("swcred export, \(rows) credentials to Apple CSV", exportRun, budget: rows == 100_000 ? 3 : nil))

if FileManager.default.isExecutableFile(atPath: "/usr/bin/keepassxc-cli") {
    var keepass: [Run] = []
    for round in 0..<rounds {
        // An empty password is asked twice; KeePassXC's default KDF (Argon2 for about 1 s) is kept.
        keepass.append(
            try spawn(
                "/usr/bin/keepassxc-cli", ["import", "-p", path("keepass.xml"), path("keepass-\(round).kdbx")],
                input: "bench-password\nbench-password\n"))
    }
    report.add(cells("keepassxc-cli import, the same \(rows) entries as KeePass XML", median(keepass), budget: nil))
}
print(report.markdown())
