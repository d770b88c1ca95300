import CSodium

/// One-time initialisation of libsodium. Every type that calls libsodium calls
/// ``Sodium/ensureInitialized()`` first; the work is done once per process.
enum Sodium {
    private static let initialized: Bool = sodium_init() >= 0

    /// Initialises libsodium if it has not been yet. Fails closed: a libsodium that cannot
    /// initialise (no entropy source) stops the process rather than run with weak randomness.
    static func ensureInitialized() {
        precondition(initialized, "libsodium failed to initialise")
    }
}
