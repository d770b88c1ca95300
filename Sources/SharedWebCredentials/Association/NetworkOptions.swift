/// How verification may use the network: offline or not, extra trust roots, `--connect-to`
/// rules, time limits and concurrency.
public struct NetworkOptions: Sendable {
    /// Forbid network access: only cached verdicts count.
    public var offline: Bool
    /// A PEM file of extra trust roots, added to the system store.
    public var caFile: String?
    /// `--connect-to` rules, first match wins.
    public var connectTo: [ConnectToRule]
    /// The limit for opening a connection (TCP and TLS handshake).
    public var connectTimeout: Duration
    /// The limit for one whole fetch, from connecting to the last byte of the body.
    public var totalTimeout: Duration
    /// How many hosts are fetched at the same time.
    public var maximumConcurrentFetches: Int

    /// Creates options; the defaults are online, system roots only, 10 s to connect, 30 s in all,
    /// 16 fetches at a time.
    public init(
        offline: Bool = false,
        caFile: String? = nil,
        connectTo: [ConnectToRule] = [],
        connectTimeout: Duration = .seconds(10),
        totalTimeout: Duration = .seconds(30),
        maximumConcurrentFetches: Int = 16
    ) {
        self.offline = offline
        self.caFile = caFile
        self.connectTo = connectTo
        self.connectTimeout = connectTimeout
        self.totalTimeout = totalTimeout
        self.maximumConcurrentFetches = max(1, maximumConcurrentFetches)
    }
}
