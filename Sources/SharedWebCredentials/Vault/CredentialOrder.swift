/// The order in which credentials are listed and released: by server, then port (none first),
/// then scheme (https first), then account, each compared as Swift compares strings.
///
/// A request without a domain sorts every credential it releases, often a thousand on one
/// server. Sorting the `Credential` values with a tuple comparison moved whole values and
/// compared account names as strings about ten thousand times: 15% of that request's
/// instructions. Here each credential gets a small key instead: the rank of its (server, port)
/// among the distinct ones, and the first eight bytes of its account name when the name is
/// ASCII. Only keys that tie are settled by comparing the names as strings, so the order is
/// exactly the tuple comparison's, equal names keeping their places (the sort is stable).
enum CredentialOrder {
    /// `credentials` sorted by server, port (none first), scheme (https first) and account.
    static func sorted(_ credentials: [Credential]) -> [Credential] {
        guard credentials.count > 1 else { return credentials }
        let ranks = serverRanks(credentials)
        var keys = credentials.indices.map { SortKey(rank: ranks[$0], account: credentials[$0].account, index: $0) }
        keys.sort { lhs, rhs in
            if lhs.rank != rhs.rank { return lhs.rank < rhs.rank }
            if lhs.isASCII && rhs.isASCII && lhs.prefix != rhs.prefix { return lhs.prefix < rhs.prefix }
            return credentials[lhs.index].account < credentials[rhs.index].account
        }
        return keys.map { credentials[$0.index] }
    }

    /// Whether `lhs`'s (server, port, scheme) comes before `rhs`'s.
    private static func serverPrecedes(_ lhs: Credential, _ rhs: Credential) -> Bool {
        (lhs.server, lhs.port ?? 0, lhs.scheme.listOrder) < (rhs.server, rhs.port ?? 0, rhs.scheme.listOrder)
    }

    /// For each credential, the rank of its (server, port, scheme) among the distinct ones in order:
    /// equal servers share a rank. Credentials read through one blind index come in runs of one
    /// server, so servers are compared once a run, not once a credential.
    private static func serverRanks(_ credentials: [Credential]) -> [Int] {
        var runStarts: [Int] = []
        var runOfCredential: [Int] = []
        runOfCredential.reserveCapacity(credentials.count)
        for (offset, credential) in credentials.enumerated() {
            let sameAsRun = runStarts.last.map {
                credentials[$0].site == credential.site
            }
            if sameAsRun != true { runStarts.append(offset) }
            runOfCredential.append(runStarts.count - 1)
        }
        let runsByServer = runStarts.indices.sorted {
            serverPrecedes(credentials[runStarts[$0]], credentials[runStarts[$1]])
        }
        var rankOfRun = [Int](repeating: 0, count: runStarts.count)
        var rank = 0
        for (position, run) in runsByServer.enumerated() {
            if position > 0,
                serverPrecedes(credentials[runStarts[runsByServer[position - 1]]], credentials[runStarts[run]])
            {
                rank += 1
            }
            rankOfRun[run] = rank
        }
        return runOfCredential.map { rankOfRun[$0] }
    }

    /// What a credential is sorted by, short of its account name itself.
    private struct SortKey {
        /// The rank of the credential's (server, port, scheme).
        let rank: Int
        /// The account name's first eight bytes, big-endian, zero-padded: for two ASCII names,
        /// different prefixes order them as the names do.
        let prefix: UInt64
        /// Whether the account name is ASCII, whose strings compare byte by byte.
        let isASCII: Bool
        /// The credential's position in the unsorted list.
        let index: Int

        init(rank: Int, account: String, index: Int) {
            self.rank = rank
            self.index = index
            var account = account
            (prefix, isASCII) = account.withUTF8 { bytes in
                var prefix: UInt64 = 0
                for (position, byte) in bytes.prefix(8).enumerated() {
                    prefix |= UInt64(byte) << (56 - 8 * position)
                }
                return (prefix, bytes.allSatisfy { $0 < 0x80 })
            }
        }
    }
}
