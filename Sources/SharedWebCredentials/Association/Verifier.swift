import Crypto

/// Verifies apps against the sites in their entitlements: fetches each site's AASA file (for
/// Apple apps) or Digital Asset Links statement list (for Android apps' `get_login_creds:`
/// entries) once per run, many at a time with a bound, and judges every (app, entry) pair
/// against it.
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

    /// Verifies many (app, entry) pairs in one run; each site's file is fetched once. Results come
    /// back in the order of `pairs`.
    public func verify(_ pairs: [(ApplicationIdentifier, AssociatedDomainEntry)]) async -> [DomainVerification] {
        func targets(assetLinks: Bool) -> [DomainTarget] {
            var targets: [DomainTarget] = []
            var seen = Set<DomainTarget>()
            for (_, entry) in pairs where (entry.service == .getLoginCreds) == assetLinks {
                if seen.insert(entry.aasaTarget).inserted { targets.append(entry.aasaTarget) }
            }
            return targets
        }
        // One kind after the other, so that no more than `maximumConcurrentFetches` are in flight.
        let fetched = await fetchAll(targets(assetLinks: false)) { [fetcher] in await fetcher.fetch($0) }
        let lists = await fetchAll(targets(assetLinks: true)) { [fetcher] in
            await AssetLinksFetcher(fetcher: fetcher).fetch($0)
        }
        let verifications = pairs.map { app, entry in
            entry.service == .getLoginCreds
                ? Self.judge(app: app, entry: entry, statementList: lists[entry.aasaTarget]!)
                : Self.judge(app: app, entry: entry, fetch: fetched[entry.aasaTarget]!)
        }
        if let observer { verifications.forEach(observer) }
        return verifications
    }

    /// Fetches `targets` with `fetch`, at most `maximumConcurrentFetches` in flight.
    func fetchAll<Fetched: Sendable>(
        _ targets: [DomainTarget], _ fetch: @escaping @Sendable (DomainTarget) async -> Fetched
    ) async -> [DomainTarget: Fetched] {
        await withTaskGroup(of: (DomainTarget, Fetched).self) { group in
            var results: [DomainTarget: Fetched] = [:]
            var pending = targets.makeIterator()
            for _ in 0..<maximumConcurrentFetches {
                guard let target = pending.next() else { break }
                group.addTask { (target, await fetch(target)) }
            }
            while let (target, result) = await group.next() {
                results[target] = result
                if let next = pending.next() {
                    group.addTask { (next, await fetch(next)) }
                }
            }
            return results
        }
    }

    /// Fetches the Digital Asset Links statement list of `target` and what it includes.
    public func statementList(of target: DomainTarget) async -> AssetLinksFetchResult {
        await AssetLinksFetcher(fetcher: fetcher).fetch(target)
    }

    /// Judges an Android app's `get_login_creds:` entry against the site's statement list
    /// (``AssetLinksApproval``): the app's package name and registered signing certificates.
    static func judge(
        app: ApplicationIdentifier, entry: AssociatedDomainEntry, statementList fetch: AssetLinksFetchResult
    ) -> DomainVerification {
        func verdict(
            _ verdict: AssociationVerdict, _ reasons: [AASADiagnostic], digest: [UInt8]? = nil
        ) -> DomainVerification {
            let ordered = reasons.filter { $0.severity == .error } + reasons.filter { $0.severity == .warning }
            var check = DomainVerification(
                app: app, entry: entry, verdict: verdict, reasons: ordered, documentDigest: digest)
            check.maximumAge = fetch.maximumAge
            return check
        }
        switch fetch.outcome {
        case .denied: return verdict(.denied, fetch.diagnostics)
        case .unverified: return verdict(.unverified, fetch.diagnostics)
        case .fetched(let statements, let digest):
            guard let packageName = app.androidPackageName else {
                let refusal = AASADiagnostic.error(
                    "not-android", "\(app) is not an Android app; a Digital Asset Links list approves only Android apps"
                )
                return verdict(.denied, [refusal] + fetch.diagnostics, digest: digest)
            }
            let refusal = AssetLinksApproval.explainRefusal(
                statements, packageName: packageName, fingerprints: app.signingCertificates)
            if refusal.isEmpty { return verdict(.approved, fetch.diagnostics, digest: digest) }
            return verdict(.denied, refusal + fetch.diagnostics, digest: digest)
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
