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

guard CommandLine.arguments.count == 3 else {
    print("usage: peers-bench RELEASE_BIN_DIR MAKE_KDBX_SCRIPT (run it with Scripts/bench peers)")
    exit(2)
}
let stores: PeerStores
do {
    stores = try PeerStores.make(entries: 100, makeKDBX: CommandLine.arguments[2])
} catch {
    print("peers-bench: \(error)")
    exit(1)
}

/// "a / b" as a ratio with two decimals.
func ratio(_ a: Double, _ b: Double) -> String { String(format: "%.2f", a / b) }

var comparisons = Report(columns: ["comparison", "swcred median", "peer median", "peer / swcred"])
let summary: String
do {
    let processes = try compareProcesses(binaries: CommandLine.arguments[1], stores: stores, into: &comparisons)
    try compareLookupWithFloor(size: 100_000, in: stores.directory, into: &comparisons)
    let overhead = try overheadReport(stores: stores, processes: processes)
    summary = [try stores.describe(), comparisons.markdown(), "", overhead.markdown()].joined(separator: "\n")
} catch {
    stores.remove()
    print("peers-bench: \(error)")
    exit(1)
}
stores.remove()
print(summary)
