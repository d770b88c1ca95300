import BenchmarkSupport
import Foundation
import SharedWebCredentials

/// Adds the in-process lookup after unlock (what vault-bench measures) against the bare SQLite
/// point query on the same file (the floor) to `comparisons`, on a vault of `size` credentials
/// filled as vault-bench fills it, in `directory`.
func compareLookupWithFloor(size lookupVaultSize: Int, in directory: URL, into comparisons: inout Report) throws {
    let lookupVaultPath = directory.appendingPathComponent("lookup-\(lookupVaultSize).sqlite").path
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

}
