// Grant benchmarks (issue 50, item 5): what a write of grants and a token check cost as the
// number of app tokens grows. At each size it times `app token create` (the library call
// `vault.appTokens.create`, one grant write: the sealed grant set read, changed and sealed
// again) and an authenticated token check (`vault.appTokens.authenticate`, the read a request
// through the service starts with), the first check after each create apart, twice: by the
// handle that made the token (its checked members move with its own write) and by a second
// handle that did not (opened under another spelling of the same file or database, so it keeps
// members of its own, as another process would: its first check reads and checks them all again,
// the in-memory check's rebuild).
//
// The vault uses a raw key: the KDF is not what is measured. It is filled through the same
// `create` call (one app, every token of it), in /dev/shm where there is one: each create costs
// more the more tokens there are, so the fill grows as the square of the size, and the disk's
// fsync of each create would add to it. At each size the vault is
// copied (`Vault.copy`, what `swcred store copy` does) to a file on disk, measured there, and
// with `--postgres` also copied into a new database of that cluster and measured there.
import BenchmarkSupport
import Foundation
import SharedWebCredentials

// Usage: grants-bench [--postgres ADMIN-URL] [--rounds N] [SIZE ...]   (default: 10 1000 10000)
// ADMIN-URL is what `Scripts/postgres start` prints; each size gets a database of its own, dropped
// afterwards.
let arguments = Array(CommandLine.arguments.dropFirst())
/// The value after the option `name`, if given.
func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}
let postgresAdmin = option("--postgres")
let rounds = option("--rounds").flatMap { Int($0) } ?? 15
let optionValues = [postgresAdmin, option("--rounds")].compactMap { $0 }
let requestedSizes = arguments.filter { !optionValues.contains($0) }.compactMap { Int($0) }.filter { $0 > 0 }
let sizes = (requestedSizes.isEmpty ? [10, 1_000, 10_000] : requestedSizes).sorted()
/// Steady-state checks timed after each create.
let checksPerRound = 20

let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("grants-bench-\(UUID().uuidString)")
let memory =
    FileManager.default.fileExists(atPath: "/dev/shm")
    ? "/dev/shm/grants-bench-\(UUID().uuidString)" : directory.path + "/fill"
for folder in [directory.path, memory] {
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
}
defer { for folder in [directory.path, memory] { try? FileManager.default.removeItem(atPath: folder) } }

let app = try ApplicationIdentifier("ABCDE12345.com.example.grants")

/// Creates one token of `app` that never expires.
func createToken(_ vault: Vault) throws -> SecureBytes {
    try vault.appTokens.create(app: app, permissions: [.request], consent: .none, expiresAt: nil).token
}

/// The medians of one store at one size.
struct Figures {
    var create = Samples()
    var check = Samples()
    var firstCheck = Samples()
    var rebuild = Samples()
}

/// Times `rounds` creates on `vault`, each followed by one check by `vault` (the first after
/// its own change), one by `other` (the first after another handle's change: the rebuild), and
/// `checksPerRound` more, of tokens picked at random from `tokens`.
func measure(_ vault: Vault, other: Vault, tokens: [SecureBytes]) throws -> Figures {
    var figures = Figures()
    var generator = SystemRandomNumberGenerator()
    func check(_ handle: Vault) throws {
        let token = tokens[Int.random(in: 0..<tokens.count, using: &generator)]
        _ = try handle.appTokens.authenticate(token)
    }
    for _ in 0..<checksPerRound { try check(vault) }  // warm up
    for _ in 0..<rounds {
        figures.create.append(try time { _ = try createToken(vault) })
        figures.firstCheck.append(try time { try check(vault) })
        figures.rebuild.append(try time { try check(other) })
        figures.check.append(contentsOf: try BenchmarkSupport.measure(count: checksPerRound) { try check(vault) })
    }
    return figures
}

/// Runs `psql` on the admin database.
func psql(_ admin: String, _ statement: String) throws {
    try run(
        TimedCommand(
            "psql", executable: try executablePath(named: "psql"),
            arguments: ["-X", "-q", "-d", admin, "-c", statement]))
}

/// Adds `figures` to `report` and prints them as one line for scripts that compare runs.
func add(_ store: String, _ size: Int, _ figures: Figures, fill: String, to report: inout Report) {
    report.add([
        store, "\(size)", formatNanoseconds(figures.create.median), formatNanoseconds(figures.check.median),
        formatNanoseconds(figures.firstCheck.median), formatNanoseconds(figures.rebuild.median), fill,
    ])
    print(
        "RESULT \(store) \(size) create \(Int(figures.create.median)) check \(Int(figures.check.median)) first-check \(Int(figures.firstCheck.median)) rebuild \(Int(figures.rebuild.median))"
    )
}

var report = Report(columns: [
    "store", "tokens", "create median", "check median", "first check after its own create, median",
    "first check by another handle after a create (the rebuild), median", "fill",
])
let key = SecureBytes.random(count: KeyFile.length)
let vault = try Vault.create(at: memory + "/vault.sqlite", protection: .rawKey(key))
try vault.apps.register(app, entitlements: Entitlements(strings: ["webcredentials:example.com"]), at: Date())
var tokens: [SecureBytes] = []
for size in sizes {
    let fillTime = try time {
        while tokens.count < size { tokens.append(try createToken(vault)) }
    }
    print("filled \(size) tokens in \(String(format: "%.2f", seconds(fillTime))) s")
    // Measured on a copy on disk: the tokens its rounds create stay out of the vault being filled.
    let path = directory.appendingPathComponent("vault-\(size).sqlite").path
    _ = try Vault.copy(from: .file(memory + "/vault.sqlite"), to: .file(path), secret: .key(key))
    // The second handle reaches the same file through a symbolic link: another location, so
    // checked members of its own.
    let link = directory.appendingPathComponent("link-\(size).sqlite").path
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
    add(
        "SQLite", size,
        try measure(
            try Vault.open(at: path, secret: .key(key)), other: try Vault.open(at: link, secret: .key(key)),
            tokens: tokens),
        fill: String(format: "%.2f s", seconds(fillTime)), to: &report)
    if let postgresAdmin {
        let database = "swcred_grants_bench_\(getpid())_\(size)"
        try psql(postgresAdmin, "CREATE DATABASE \(database)")
        defer { try? psql(postgresAdmin, "DROP DATABASE \(database) WITH (FORCE)") }
        let query = postgresAdmin.split(separator: "?", maxSplits: 1).dropFirst().first.map { "?\($0)" } ?? ""
        let url = try PostgresStoreURL(parsing: "postgresql://swcred@/\(database)\(query)")
        let copyTime = try time {
            _ = try Vault.copy(from: .file(path), to: .postgresql(url, password: nil), secret: .key(key))
        }
        let copy = try Vault.open(store: .postgresql(url, password: nil), secret: .key(key))
        // The second handle names the socket's directory (the query's last item, `host=`, as
        // `Scripts/postgres start` prints it) with a trailing "/.": the same server.
        let otherURL = try PostgresStoreURL(parsing: "postgresql://swcred@/\(database)\(query)/.")
        let other = try Vault.open(store: .postgresql(otherURL, password: nil), secret: .key(key))
        add(
            "PostgreSQL", size, try measure(copy, other: other, tokens: tokens),
            fill: String(format: "copy %.2f s", seconds(copyTime)), to: &report)
    }
}
print(report.markdown())
