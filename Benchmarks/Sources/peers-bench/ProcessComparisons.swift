import BenchmarkSupport
import Foundation

/// Adds the whole-process comparisons to `comparisons`: password generation (in bulk and one per
/// process) and one lookup per process against each peer's store.
///
/// - Returns: the samples of the lookup group, in this order: `swcred request` (default KDF),
///   `keepassxc-cli show`, `pass show`, `swcred request --key-file`, `swcred --help`,
///   `foundation-startup`, `true` (the last three are the start-up floors of ``overheadReport``).
func compareProcesses(
    binaries: String, stores: PeerStores, into comparisons: inout Report
) throws -> [ProcessSamples] {
    let swcred = binaries + "/swcred"
    let keepassxc = try executablePath(named: "keepassxc-cli")

    /// One row: swcred's median, the peer's, and how many times longer the peer took.
    func compare(_ name: String, _ swcredSamples: ProcessSamples, _ peerSamples: ProcessSamples) {
        comparisons.add([
            name, formatNanoseconds(swcredSamples.median), formatNanoseconds(peerSamples.median),
            ratio(peerSamples.median, swcredSamples.median),
        ])
    }

    // Generation.
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
            TimedCommand(
                "pwgen -s 20 1", executable: try executablePath(named: "pwgen"), arguments: ["-s", "20", "1"]),
            TimedCommand("keepassxc-cli generate", executable: keepassxc, arguments: ["generate", "-L", "20"]),
        ], rounds: 20)
    compare("one password per process: `swcred generate` vs `pwgen -s 20 1`", single[0], single[1])
    compare("one password per process: `swcred generate` vs `keepassxc-cli generate -L 20`", single[0], single[2])

    // One lookup as a whole process, and the start-up floors.
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
                "foundation-startup", executable: binaries + "/foundation-startup", arguments: []),
            TimedCommand("true", executable: try executablePath(named: "true"), arguments: []),
        ], rounds: 21)
    compare("lookup process: `swcred request` vs `keepassxc-cli show`, same Argon2id", processes[0], processes[1])
    compare("lookup process: `swcred request` (Argon2id) vs `pass show` (no KDF)", processes[0], processes[2])
    compare(
        "lookup process: `swcred request --key-file` vs `pass show` (neither has a KDF)", processes[3], processes[2])

    return processes
}
