import Crypto

/// Verifies apps against the sites in their entitlements: fetches each site's AASA file once per
/// run (many at a time, with a bound) and judges every (app, entry) pair against it.
public struct Verifier: Sendable {
    private let fetcher: AASAFetcher
    private let maximumConcurrentFetches: Int
    private let observer: (@Sendable (DomainVerification) -> Void)?

    /// Creates a verifier that fetches with `fetcher`, at most `maximumConcurrentFetches` hosts at once.
    public init(fetcher: AASAFetcher, maximumConcurrentFetches: Int = 16) {
        self.init(fetcher: fetcher, maximumConcurrentFetches: maximumConcurrentFetches, observer: nil)
    }

    private init(
        fetcher: AASAFetcher, maximumConcurrentFetches: Int, observer: (@Sendable (DomainVerification) -> Void)?
    ) {
        self.fetcher = fetcher
        self.maximumConcurrentFetches = max(1, maximumConcurrentFetches)
        self.observer = observer
    }

    /// This verifier, also calling `observer` with every verification it makes (after any
    /// observer it already had), for example to count them.
    public func observed(by observer: @escaping @Sendable (DomainVerification) -> Void) -> Verifier {
        let previous = self.observer
        return Verifier(
            fetcher: fetcher, maximumConcurrentFetches: maximumConcurrentFetches,
            observer: { verification in
                previous?(verification)
                observer(verification)
            })
    }

    /// Runs `body` with a verifier over a new HTTPS fetcher for `options`, and shuts the
    /// fetcher down however `body` ends.
    public static func withVerifier<Result>(
        options: NetworkOptions, _ body: (Verifier) async throws -> Result
    ) async throws -> Result {
        let fetcher = try AASAFetcher(options: options)
        do {
            let result = try await body(
                Verifier(fetcher: fetcher, maximumConcurrentFetches: options.maximumConcurrentFetches))
            try await fetcher.shutdown()
            return result
        } catch {
            try? await fetcher.shutdown()
            throw error
        }
    }

    /// Verifies `app` for the request domain `domain`: finds the `webcredentials:` entry that
    /// covers it (exact beats wildcard) and checks that entry's site.
    ///
    /// - Throws: `missingEntitlement` when no `webcredentials:` entry covers the domain.
    public func verify(
        app: ApplicationIdentifier, entitlements: Entitlements, domain: DomainTarget
    ) async throws
        -> DomainVerification
    {
        guard let entry = entitlements.webcredentialsEntry(covering: domain) else {
            throw SharedWebCredentialsError(
                .missingEntitlement,
                "\(domain) is not covered by a webcredentials: entry of \(app); add webcredentials:\(domain) to its entitlement"
            )
        }
        return await verify([(app, entry)])[0]
    }

    /// Verifies every `webcredentials:` entry of `app`.
    public func verify(app: ApplicationIdentifier, entitlements: Entitlements) async -> [DomainVerification] {
        await verify(entitlements.webcredentialsEntries.map { (app, $0) })
    }

    /// Verifies many (app, entry) pairs in one run; each site is fetched once. Results come back in
    /// the order of `pairs`.
    public func verify(_ pairs: [(ApplicationIdentifier, AssociatedDomainEntry)]) async -> [DomainVerification] {
        var targets: [DomainTarget] = []
        var seen = Set<DomainTarget>()
        for (_, entry) in pairs where seen.insert(entry.aasaTarget).inserted { targets.append(entry.aasaTarget) }
        let fetched = await fetchAll(targets)
        let verifications = pairs.map { app, entry in
            Self.judge(app: app, entry: entry, fetch: fetched[entry.aasaTarget]!)
        }
        if let observer { verifications.forEach(observer) }
        return verifications
    }

    /// Fetches `targets` with at most `maximumConcurrentFetches` in flight.
    func fetchAll(_ targets: [DomainTarget]) async -> [DomainTarget: AASAFetchResult] {
        await withTaskGroup(of: AASAFetchResult.self) { group in
            var results: [DomainTarget: AASAFetchResult] = [:]
            var pending = targets.makeIterator()
            for _ in 0..<maximumConcurrentFetches {
                guard let target = pending.next() else { break }
                group.addTask { [fetcher] in await fetcher.fetch(target) }
            }
            while let result = await group.next() {
                results[result.target] = result
                if let target = pending.next() {
                    group.addTask { [fetcher] in await fetcher.fetch(target) }
                }
            }
            return results
        }
    }

    /// Judges one pair against a fetch result, for the entry's own service.
    static func judge(
        app: ApplicationIdentifier, entry: AssociatedDomainEntry, fetch: AASAFetchResult
    )
        -> DomainVerification
    {
        func verdict(
            _ verdict: AssociationVerdict, _ reasons: [AASADiagnostic], digest: [UInt8]? = nil
        )
            -> DomainVerification
        {
            let ordered = reasons.filter { $0.severity == .error } + reasons.filter { $0.severity == .warning }
            return DomainVerification(
                app: app, entry: entry, verdict: verdict, reasons: ordered, documentDigest: digest)
        }
        switch fetch.outcome {
        case .denied: return verdict(.denied, fetch.diagnostics)
        case .unverified: return verdict(.unverified, fetch.diagnostics)
        case .fetched(let body, let contentType):
            let digest = Array(SHA256.hash(data: body))
            let report = AASAParser.check(body, contentType: contentType)
            if report.approves(app, for: entry.service) {
                return verdict(.approved, fetch.diagnostics + report.warnings, digest: digest)
            }
            let refusal = report.isValid ? report.explainRefusal(of: app, for: entry.service) : []
            return verdict(.denied, fetch.diagnostics + report.diagnostics + refusal, digest: digest)
        }
    }
}
