import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import X509

/// Names the TLS problem after a handshake failed certificate verification.
///
/// BoringSSL reports only "certificate verify failed". To tell the operator *why*, this opens one
/// more connection that accepts any certificate, reads the chain the server presents, closes the
/// connection without sending a request, and inspects the chain: expired or not yet valid,
/// issued for another host, self-signed, or rooted in a CA that is not trusted.
enum TLSProblemDiagnoser {
    /// Returns a sentence naming the problem, or nil if the chain could not be read.
    static func diagnose(
        host: String, connectHost: String, connectPort: Int, timeout: Duration, now: Date = Date()
    ) async -> String? {
        guard
            let chain = await presentedChain(host: host, connectHost: connectHost, port: connectPort, timeout: timeout),
            let leaf = chain.first
        else { return nil }
        for certificate in chain {
            if now > certificate.notValidAfter {
                let which = certificate == leaf ? "the certificate" : "the issuing certificate \(certificate.subject)"
                return "\(which) expired on \(iso8601(certificate.notValidAfter))"
            }
            if now < certificate.notValidBefore {
                let which = certificate == leaf ? "the certificate" : "the issuing certificate \(certificate.subject)"
                return "\(which) is not valid before \(iso8601(certificate.notValidBefore))"
            }
        }
        let names = dnsNames(of: leaf)
        if !names.contains(where: { matches(pattern: $0, host: host) }) {
            let shown = names.isEmpty ? "no DNS names" : names.joined(separator: ", ")
            return "the certificate is for \(shown), not \(host) (wrong host)"
        }
        if chain.count == 1 && leaf.issuer == leaf.subject {
            return "the certificate is self-signed (\(leaf.subject)); use a certificate from a trusted CA"
        }
        let top = chain.last!
        return
            "the certificate chain ends at \(top.issuer), which is not a trusted root (system store or --ca-file)"
    }

    private static func iso8601(_ date: Date) -> String {
        date.formatted(.iso8601)
    }

    private static func dnsNames(of certificate: Certificate) -> [String] {
        guard let names = try? certificate.extensions.subjectAlternativeNames else { return [] }
        return names.compactMap { if case .dnsName(let name) = $0 { name.lowercased() } else { nil } }
    }

    /// RFC 6125 matching: exact, or `*.` standing for exactly one left-most label.
    static func matches(pattern: String, host: String) -> Bool {
        if pattern == host { return true }
        guard pattern.hasPrefix("*."), let dot = host.firstIndex(of: ".") else { return false }
        return host[host.index(after: dot)...] == pattern.dropFirst(2)
    }

    private static func presentedChain(
        host: String, connectHost: String, port: Int, timeout: Duration
    ) async
        -> [Certificate]?
    {
        let captured = LockedBox<[NIOSSLCertificate]>([])
        let completed = LockedBox(false)
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .fullVerification
        guard let context = try? NIOSSLContext(configuration: configuration) else { return nil }
        let serverName = HostName.isIPv4(host) || HostName.isIPv6(host) ? nil : host
        let group = MultiThreadedEventLoopGroup.singleton
        let verified = group.next().makePromise(of: Void.self)
        @Sendable func finish(_ result: Result<Void, any Error>) {
            if completed.withLock({ done in
                defer { done = true }; return !done
            }) {
                verified.completeWith(result)
            }
        }
        let bootstrap = ClientBootstrap(group: group)
            .connectTimeout(.nanoseconds(Int64(timeout.components.seconds) * 1_000_000_000))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let handler = try NIOSSLClientHandler(
                        context: context, serverHostname: serverName,
                        customVerificationCallback: { certificates, promise in
                            captured.withLock { $0 = certificates }
                            promise.succeed(.certificateVerified)
                            finish(.success(()))
                        })
                    try channel.pipeline.syncOperations.addHandler(handler)
                }
            }
        do {
            let channel = try await bootstrap.connect(host: connectHost, port: port).get()
            channel.closeFuture.whenComplete { _ in finish(.failure(ChannelError.ioOnClosedChannel)) }
            let timer = channel.eventLoop.scheduleTask(in: .seconds(Int64(timeout.components.seconds) + 1)) {
                finish(.failure(ChannelError.connectTimeout(.seconds(1))))
            }
            defer {
                timer.cancel()
                channel.close(promise: nil)
            }
            try await verified.futureResult.get()
        } catch {
            finish(.failure(error))
            return nil
        }
        return try? captured.withLock { certificates in
            try certificates.map { try Certificate(derEncoded: try $0.toDERBytes()) }
        }
    }
}
