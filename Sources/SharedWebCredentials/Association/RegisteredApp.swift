import Foundation

/// An app registered in a vault together with its associated-domains entitlement.
public struct RegisteredApp: Sendable, Equatable {
    /// The app.
    public let identifier: ApplicationIdentifier
    /// Its entitlement.
    public let entitlements: Entitlements
    /// When the owner registered it.
    public let registeredAt: Date

    /// Creates a registration record.
    public init(identifier: ApplicationIdentifier, entitlements: Entitlements, registeredAt: Date) {
        self.identifier = identifier
        self.entitlements = entitlements
        self.registeredAt = registeredAt
    }
}
