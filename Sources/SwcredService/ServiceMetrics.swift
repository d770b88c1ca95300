import Prometheus
import SharedWebCredentials
import Synchronization

/// The service's metrics, served in Prometheus text at `GET /metrics`: requests by route, method
/// and status with their latency, the gate's decisions, site verifications, the lock state, the
/// audit log's group commits and the database's transactions.
///
/// Labels hold only route templates, methods, status codes, operation names, verdicts and error
/// codes: never a token, an account, a domain or an app, so the page can be scraped by anyone
/// allowed on the socket.
final class ServiceMetrics: Sendable {
    /// Latency buckets, 100 µs to 10 s: a released credential takes well under a millisecond,
    /// an inline verification or an unlock (Argon2id) whole seconds.
    static let latencyBuckets: [Duration] = [
        .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2.5),
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10),
    ]

    private let registry = PrometheusCollectorRegistry()
    /// The handles already made, by their labels: the registry builds and checks a metric's name
    /// and looks up its labels on every `make` call, which cost about 6 µs of every request. The
    /// labels are bounded (route templates, llhttp's methods, status codes, operations, error
    /// codes), so these stay small.
    private let requestHandles = Mutex<[RequestLabels: (count: Counter, latency: DurationHistogram)]>([:])
    private let gateHandles = Mutex<[GateLabels: Counter]>([:])
    private let locked: Gauge
    private let auditGroups: Gauge
    private let auditGroupedEntries: Gauge
    private let auditLargestGroup: Gauge
    private let readTransactions: Gauge
    private let writeTransactions: Gauge

    init() {
        let registry = registry
        func gauge(_ name: String, _ help: String) -> Gauge {
            registry.makeGauge(descriptor: .init(namespace: "swcred", metricName: name, unitName: "", helpText: help))
        }
        locked = gauge("vault_locked", "1 while the vault is locked, 0 while it is unlocked.")
        auditGroups = gauge(
            "audit_group_commits",
            "Transactions that committed a group of audit entries (releases, refusals, generated passwords) since the vault was unlocked."
        )
        auditGroupedEntries = gauge(
            "audit_group_entries", "Audit entries committed in groups since the vault was unlocked.")
        auditLargestGroup = gauge(
            "audit_group_largest", "The most audit entries one group commit held since the vault was unlocked.")
        readTransactions = gauge(
            "store_read_transactions", "Read transactions on the vault's database since the vault was unlocked.")
        writeTransactions = gauge(
            "store_write_transactions", "Write transactions on the vault's database since the vault was unlocked.")
    }

    /// Counts one answered request and its latency; `route` is the matched route's template
    /// (never the raw path, which a client chooses), or "NotFound" when no route matched.
    func recordRequest(route: String, method: String, status: Int, duration: Duration) {
        let labels = RequestLabels(route: route, method: method, status: status)
        let handles = requestHandles.withLock { handles in
            if let made = handles[labels] { return made }
            let made = (
                count: registry.makeCounter(
                    descriptor: .init(
                        namespace: "swcred", metricName: "http_requests", unitName: "total",
                        helpText: "Requests answered, by route, method and status."),
                    labels: [("route", route), ("method", method), ("status", String(status))]),
                latency: registry.makeDurationHistogram(
                    descriptor: .init(
                        namespace: "swcred", metricName: "http_request_duration", unitName: "seconds",
                        helpText: "Time from a request's head to its answer, by route."),
                    labels: [("route", route)], buckets: Self.latencyBuckets)
            )
            handles[labels] = made
            return made
        }
        handles.count.increment()
        handles.latency.record(duration)
    }

    /// Counts one decision of the gate: `outcome` is "allowed" or the refusal's error code.
    func recordGateDecision(operation: GateOperation, outcome: String) {
        let labels = GateLabels(operation: operation, outcome: outcome)
        let counter = gateHandles.withLock { handles in
            if let made = handles[labels] { return made }
            let made = registry.makeCounter(
                descriptor: .init(
                    namespace: "swcred", metricName: "gate_decisions", unitName: "total",
                    helpText: "Gated operations, by operation and outcome (allowed, or the error code)."),
                labels: [("operation", operation.rawValue), ("outcome", outcome)])
            handles[labels] = made
            return made
        }
        counter.increment()
    }

    /// Counts one site verification by its verdict; `background` for the re-verifier's.
    func recordVerification(_ verdict: AssociationVerdict, background: Bool) {
        registry.makeCounter(
            descriptor: .init(
                namespace: "swcred", metricName: "verifications", unitName: "total",
                helpText: "Site verifications, by verdict and by trigger (inline for a request, or background)."),
            labels: [("verdict", verdict.rawValue), ("trigger", background ? "background" : "inline")]
        ).increment()
    }

    /// The exposition text, with the lock state, the audit log's group commits (`audit`) and the
    /// database's transactions (`transactions`), each nil while locked, as they are now.
    func exposition(
        locked isLocked: Bool, audit: AuditCommitStatistics?, transactions: StoreTransactionCounts?
    ) -> [UInt8] {
        locked.set(to: isLocked ? 1.0 : 0.0)
        let audit = audit ?? AuditCommitStatistics()
        auditGroups.set(to: Double(audit.commits))
        auditGroupedEntries.set(to: Double(audit.entries))
        auditLargestGroup.set(to: Double(audit.largestGroup))
        readTransactions.set(to: Double(transactions?.reads ?? 0))
        writeTransactions.set(to: Double(transactions?.writes ?? 0))
        return registry.emitToBuffer()
    }
}

/// The labels of one series of `swcred_http_requests_total`.
private struct RequestLabels: Hashable {
    let route: String
    let method: String
    let status: Int
}

/// The labels of one series of `swcred_gate_decisions_total`.
private struct GateLabels: Hashable {
    let operation: GateOperation
    let outcome: String
}

/// The gated operations, as the metrics name them.
enum GateOperation: String, Sendable {
    case request, save, delete, generate, associations
    case passkeyCreate = "passkey-create"
    case passkeyGet = "passkey-get"
}
