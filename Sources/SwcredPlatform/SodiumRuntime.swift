import CSodium

/// libsodium's one-time initialisation, done before the first call that needs it.
public enum SodiumRuntime {
    /// Evaluated once; `sodium_init` is safe to call repeatedly, but it must have succeeded before
    /// any key is made or any box opened.
    public static let ready: Void = {
        precondition(sodium_init() >= 0, "libsodium could not be initialised")
    }()
}
