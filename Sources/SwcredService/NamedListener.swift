import Glibc
import NIOCore
import ServiceLifecycle

/// A listener whose failure to bind its address is a start-up error that names the address and
/// says what to do, instead of NIO's `bind(descriptor:ptr:bytes:)` text and exit status 1.
struct NamedListener<Wrapped: Service>: Service {
    let wrapped: Wrapped
    /// What the listener binds, as the user gave it: "the socket /run/…/swcred.sock".
    let address: String
    /// The option to change, for the message: "pass another --socket".
    let advice: String
    let reason: ServiceStartError.Reason

    func run() async throws {
        do {
            try await wrapped.run()
        } catch let error as IOError {
            guard error.description.hasPrefix("bind(") else { throw error }
            throw ServiceStartError(
                reason, "cannot listen on \(address): \(String(cString: strerror(error.errnoCode))): \(advice)")
        }
    }
}
