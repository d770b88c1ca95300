import CSodium
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Whether this process's secrets are locked into RAM, so that they are never written to swap.
///
/// Every buffer that holds secrets is locked with `mlock` when it is made. The kernel refuses
/// once the process passes `RLIMIT_MEMLOCK` (often 64 KiB for ordinary users, 8 MiB on newer
/// systems) unless it has `CAP_IPC_LOCK`; the secrets still work, but unlocked. This records the
/// first refusal so that a tool can warn and a service can report it in its health and metrics.
public enum SecretMemory {
    /// What locking has done so far in this process.
    public enum LockState: Sendable, Equatable {
        /// No secret buffer has been made yet.
        case unused
        /// Every secret buffer made so far is locked.
        case locked
        /// At least one buffer could not be locked; the reason names the error and the limit.
        case failed(reason: String)
    }

    private static let state = Mutex(LockState.unused)

    /// The state so far. It only moves from `unused` to `locked`, and from either to `failed`.
    public static var lockState: LockState { state.withLock { $0 } }

    /// Makes and releases one small secret buffer, so that ``lockState`` says whether this
    /// process can lock secrets even before it has held any.
    public static func probe() -> LockState {
        _ = SecureBytes(count: 1) { _ in }
        return lockState
    }

    /// Locks `count` bytes at `pointer` (already locked by `sodium_malloc` if it could) and
    /// records whether that worked. Locking twice is harmless: pages are locked or not.
    static func lock(_ pointer: UnsafeMutableRawPointer, count: Int) {
        let failure = sodium_mlock(pointer, count) == 0 ? nil : errno
        state.withLock { current in
            if case .failed = current { return }
            guard let failure else {
                current = .locked
                return
            }
            current = .failed(reason: "mlock: \(String(cString: strerror(failure)))\(limitDescription)")
        }
    }

    /// `; RLIMIT_MEMLOCK is 64 KiB`, or nothing when the limit cannot be read or is unlimited.
    private static var limitDescription: String {
        var limit = rlimit()
        guard getrlimit(Int32(__RLIMIT_MEMLOCK.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else {
            return ""
        }
        return "; RLIMIT_MEMLOCK is \(limit.rlim_cur / 1024) KiB"
    }
}
