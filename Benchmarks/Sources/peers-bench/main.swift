// swcred against what people would use instead, in one run on one machine, each comparison a
// ratio of medians (machines are noisy; ratios travel, times do not):
// 1. password generation, 20 characters: in bulk (1,000,000 per process, so start-up is
//    amortised) vs `pwgen -s 20`; one per process vs `pwgen -s 20 1` and
//    `keepassxc-cli generate -L 20` (which makes one password per call);
// 2. one credential lookup as a whole process, secret never in argv: `swcred request --offline`
//    on a vault with the default KDF vs `keepassxc-cli show` on a KDBX 4 file with the same
//    Argon2id parameters vs `pass show` (gpg, passphrase-less key, its agent left running as in
//    daily use); and `swcred request` on a key-file vault (no KDF);
// 3. in-process lookup after unlock (what vault-bench measures) vs the bare SQLite point query
//    on the same file (the floor);
// 4. DESIGN.md's budget "a CLI call's own overhead beyond the KDF: under 30 ms", with the floors
//    under it: starting any process (`true`) and any Swift program that loads Foundation.
// Processes are timed interleaved, round by round (BenchmarkSupport.timeInterleaved).
//
// Usage: peers-bench RELEASE_BIN_DIR MAKE_KDBX_SCRIPT   (Scripts/bench peers passes both)
import BenchmarkSupport
import Foundation
import SharedWebCredentials

guard CommandLine.arguments.count == 3 else {
    print("usage: peers-bench RELEASE_BIN_DIR MAKE_KDBX_SCRIPT (run it with Scripts/bench peers)")
    exit(2)
}
let swcred = CommandLine.arguments[1] + "/swcred"
let entries = 100
let lookupVaultSize = 100_000
let keepassxc = try executablePath(named: "keepassxc-cli")
let stores = try PeerStores.make(entries: entries, makeKDBX: CommandLine.arguments[2])
defer { stores.remove() }

/// "a / b" as a ratio with two decimals.
func ratio(_ a: Double, _ b: Double) -> String { String(format: "%.2f", a / b) }

var comparisons = Report(columns: ["comparison", "swcred median", "peer median", "peer / swcred"])

// 1. Generation.
let bulkCount = 1_000_000
let bulk = try timeInterleaved(
    [
        TimedCommand(
            "swcred generate --count", executable: swcred, arguments: ["generate", "--count", "\(bulkCount)"]),
        TimedCommand(
            "pwgen -s 20", executable: try executablePath(named: "pwgen"), arguments: ["-s", "20", "\(bulkCount)"]),
    ], rounds: 3)
let perPassword = bulk.map { formatNanoseconds($0.median / Double(bulkCount)) + " each" }
comparisons.add([
    "`swcred generate --count 1000000` vs `pwgen -s 20 1000000`", perPassword[0], perPassword[1],
    ratio(bulk[1].median, bulk[0].median),
])
let single = try timeInterleaved(
    [
        TimedCommand("swcred generate", executable: swcred, arguments: ["generate"]),
        TimedCommand("pwgen -s 20 1", executable: try executablePath(named: "pwgen"), arguments: ["-s", "20", "1"]),
        TimedCommand("keepassxc-cli generate", executable: keepassxc, arguments: ["generate", "-L", "20"]),
    ], rounds: 20)
comparisons.add([
    "one password per process: `swcred generate` vs `pwgen -s 20 1`", formatNanoseconds(single[0].median),
    formatNanoseconds(single[1].median), ratio(single[1].median, single[0].median),
])
comparisons.add([
    "one password per process: `swcred generate` vs `keepassxc-cli generate -L 20`",
    formatNanoseconds(single[0].median), formatNanoseconds(single[2].median), ratio(single[2].median, single[0].median),
])

// 2. One lookup as a whole process, and (for 4.) the start-up floors.
let request = ["request", "--offline", "--app", PeerStores.app, "--domain", PeerStores.server, "--all"]
let processes = try timeInterleaved(
    [
        TimedCommand(
            "swcred request (default KDF)", executable: swcred, arguments: request,
            environment: ["SWCRED_VAULT": stores.passphraseVault, "SWCRED_PASSPHRASE": PeerStores.passphrase],
            expectedOutput: PeerStores.password),
        TimedCommand(
            "keepassxc-cli show", executable: keepassxc,
            arguments: [
                "show", "--quiet", "--show-protected", "--attributes", "password", stores.kdbx, PeerStores.server,
            ],
            input: Data("\(PeerStores.passphrase)\n".utf8), expectedOutput: PeerStores.password),
        TimedCommand(
            "pass show", executable: try executablePath(named: "pass"),
            arguments: ["show", "\(PeerStores.server)/\(PeerStores.account)"], environment: stores.passEnvironment,
            expectedOutput: PeerStores.password),
        TimedCommand(
            "swcred request (key file)", executable: swcred,
            arguments: request + ["--vault", stores.keyFileVault, "--key-file", stores.keyFile],
            expectedOutput: PeerStores.password),
        TimedCommand("swcred --help", executable: swcred, arguments: ["--help"]),
        TimedCommand(
            "foundation-startup", executable: CommandLine.arguments[1] + "/foundation-startup", arguments: []),
        TimedCommand("true", executable: try executablePath(named: "true"), arguments: []),
    ], rounds: 21)
let lookups = Array(processes[0..<4])
comparisons.add([
    "lookup process: `swcred request` vs `keepassxc-cli show`, same Argon2id", formatNanoseconds(lookups[0].median),
    formatNanoseconds(lookups[1].median), ratio(lookups[1].median, lookups[0].median),
])
comparisons.add([
    "lookup process: `swcred request` (Argon2id) vs `pass show` (no KDF)", formatNanoseconds(lookups[0].median),
    formatNanoseconds(lookups[2].median), ratio(lookups[2].median, lookups[0].median),
])
comparisons.add([
    "lookup process: `swcred request --key-file` vs `pass show` (neither has a KDF)",
    formatNanoseconds(lookups[3].median), formatNanoseconds(lookups[2].median),
    ratio(lookups[2].median, lookups[3].median),
])

// 3. In-process lookup vs the SQLite floor, on a vault filled as vault-bench fills it.
let lookupVaultPath = stores.directory.appendingPathComponent("lookup-\(lookupVaultSize).sqlite").path
let lookupKey = SecureBytes.random(count: KeyFile.length)
try Vault.create(at: lookupVaultPath, protection: .rawKey(lookupKey)).credentials.batch { batch in
    for index in 0..<lookupVaultSize {
        try batch.upsert(
            server: "host\(index).example", account: "user\(index)@example.com",
            password: SecureBytes(utf8: "pw-\(index)-Xq7#vL9p"))
    }
}
let lookupVault = try Vault.open(at: lookupVaultPath, secret: .key(lookupKey))
let floorQuery = try SQLitePointQuery(path: lookupVaultPath)
let serverIndexes = try floorQuery.serverIndexes()
var generator = SystemRandomNumberGenerator()
var inProcess = Samples()
var floor = Samples()
for block in 0..<6 {  // alternating blocks of 4,000 random lookups each; the first warms up
    let hosts = (0..<4_000).map { _ in Int.random(in: 0..<lookupVaultSize, using: &generator) }
    let keys = (0..<4_000).map { _ in serverIndexes[Int.random(in: 0..<serverIndexes.count, using: &generator)] }
    var position = 0
    let found = try measure(count: hosts.count) {
        let credentials = try lookupVault.credentials.find(server: "host\(hosts[position]).example")
        precondition(credentials.count == 1, "lookup found \(credentials.count) credentials")
        position += 1
    }
    position = 0
    let floorFound = measure(count: keys.count) {
        precondition(floorQuery.rows(serverIndex: keys[position]) == 1, "the floor query found no row")
        position += 1
    }
    if block > 0 {
        inProcess.append(contentsOf: found)
        floor.append(contentsOf: floorFound)
    }
}
comparisons.add([
    "in-process lookup, \(lookupVaultSize) credentials: `find(server:)` vs bare SQLite point query",
    formatNanoseconds(inProcess.median), formatNanoseconds(floor.median), ratio(floor.median, inProcess.median),
])

// 4. The CLI's own cost beyond the KDF: the KDF alone is unlocking in-process with the
// passphrase minus unlocking with the key (same vault content), interleaved, in wall-clock and
// in this thread's CPU time. CPU time is what a call costs on an idle machine: on a loaded one
// the wall clock also counts waiting for a core.
let passphrase = SecureBytes(utf8: PeerStores.passphrase)
let key = try KeyFile.read(at: stores.keyFile)
var unlock = [(wall: Samples(), cpu: Samples()), (wall: Samples(), cpu: Samples())]
for _ in 0..<9 {
    for (index, secret) in [VaultSecret.passphrase(passphrase), .key(key)].enumerated() {
        let path = index == 0 ? stores.passphraseVault : stores.keyFileVault
        let cpuStart = threadCPUTime()
        unlock[index].wall.append(try time { _ = try Vault.open(at: path, secret: secret) })
        unlock[index].cpu.append(threadCPUTime() - cpuStart)
    }
}
let kdf = (wall: unlock[0].wall.median - unlock[1].wall.median, cpu: unlock[0].cpu.median - unlock[1].cpu.median)
let budget = 30e6

/// "WALL / CPU" for a report cell.
func wallAndCPU(_ wall: Double, _ cpu: Double) -> String { "\(formatNanoseconds(wall)) / \(formatNanoseconds(cpu))" }

/// A budget row: the verdict goes by CPU time, with the wall clock's shown beside it.
func budgetRow(_ name: String, wall: Double, cpu: Double) -> [String] {
    [name, wallAndCPU(wall, cpu), "< 30 ms", cpu < budget ? (wall < budget ? "ok" : "ok in CPU time") : "OVER"]
}

var overhead = Report(columns: ["CLI call's own overhead beyond the KDF", "wall / CPU median", "budget", "verdict"])
for (name, index) in [
    ("floor: start any process (`true`)", 6), ("floor: start a Swift program that loads Foundation", 5),
    ("`swcred --help` (start-up and argument parsing)", 4),
] {
    overhead.add([name, wallAndCPU(processes[index].wall.median, processes[index].cpu.median), "", ""])
}
overhead.add(["Argon2id (opslimit 3, 64 MiB) alone, in-process", wallAndCPU(kdf.wall, kdf.cpu), "", ""])
overhead.add(
    budgetRow(
        "`swcred request` with the default KDF, minus the KDF", wall: lookups[0].wall.median - kdf.wall,
        cpu: lookups[0].cpu.median - kdf.cpu))
overhead.add(
    budgetRow(
        "`swcred request --key-file` (no KDF at all)", wall: lookups[3].wall.median, cpu: lookups[3].cpu.median))

let versions = try run(
    TimedCommand(
        "dpkg-query", executable: try executablePath(named: "dpkg-query"),
        arguments: [
            "-W", "-f", "${Package} ${Version}; ", "pwgen", "keepassxc", "pass", "gnupg", "libsodium23",
            "libargon2-1", "libsqlite3-0",
        ]))
let kdbxInfo = try run(
    TimedCommand(
        "keepassxc-cli db-info", executable: keepassxc, arguments: ["db-info", "--quiet", stores.kdbx],
        input: Data("\(PeerStores.passphrase)\n".utf8)))
let kdbxKDF = kdbxInfo.split(separator: "\n").first { $0.hasPrefix("KDF:") } ?? "no KDF line"
print("packages: \(versions)")
print("vaults, KDBX and pass store: \(entries) credentials each; swcred KDF: \(KDFParameters.default)")
print("KDBX header: \(stores.kdbxParameters); keepassxc-cli db-info: \(kdbxKDF)")
print(comparisons.markdown())
print()
print(overhead.markdown())
