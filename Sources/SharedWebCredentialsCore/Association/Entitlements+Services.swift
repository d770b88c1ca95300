/// The entries of every service that govern a domain, for verifying all of an app's services.
extension Entitlements {
    /// The `service` entry that governs `target`: an exact entry beats a wildcard, and a more
    /// specific wildcard beats a broader one. Nil if none covers it.
    public func entry(_ service: AssociatedDomainEntry.Service, covering target: DomainTarget) -> AssociatedDomainEntry?
    {
        let covering = entries.filter { $0.service == service && $0.covers(target) }
        return covering.first { !$0.isWildcard }
            ?? covering.filter(\.isWildcard).max { $0.host.count < $1.host.count }
    }

    /// For each service, the entry that governs `target`, in the order of
    /// ``AssociatedDomainEntry/Service/allCases``.
    public func entries(covering target: DomainTarget) -> [AssociatedDomainEntry] {
        AssociatedDomainEntry.Service.allCases.compactMap { entry($0, covering: target) }
    }
}
