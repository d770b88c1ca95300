import Foundation

/// Passkeys for the app, behind the same gate as its passwords (issue 26).
///
/// The relying party is decided by the gate: the RP ID must be a valid domain (not an IP address,
/// not a public suffix), an entry of the app must name exactly that host (no wildcard, no port),
/// and the site must approve the app for it (`webcredentials` in its AASA file for an Apple app,
/// `get_login_creds` in its Digital Asset Links list for an Android app), with the verdict store,
/// re-check policy and audit of passwords. Never-save does not apply: it is about passwords.
///
/// What sets the flags (``AuthenticatorSignals``):
/// - UP: the `presence` the caller vouches for, asked after the gate: the owner's consent for this
///   operation, or the standing consent of a `--consent none` token. The caller throws to decline.
/// - UV: never. Nothing in the request path verifies the person (the owner's passphrase unlocked
///   the service once, not for this request), so `userVerification: "required"` is refused with
///   `NotAllowedError`.
/// - BE set and BS clear: the vault's policy lets a passkey leave through an export (CXF), so it
///   is eligible for backup; swcred cannot know whether an export was kept, so it never claims it
///   is backed up.
/// - The signature counter is always 0 and the AAGUID all zeros, as Apple's synced passkeys.
///
/// The client data's origin comes from the app's registration: `https://RPID` for an Apple app,
/// `android:apk-key-hash:` and the SHA-256 of the signing certificate for an Android app (the
/// first certificate registered when there are several).
extension SharedWebCredentials {
    /// The backup state of every passkey: eligible (exportable), not known to be backed up.
    public static let passkeyBackup = AuthenticatorSignals.Backup.eligible

    /// Creates a passkey for the app (`navigator.credentials.create`) and seals it into the vault,
    /// with a `passkey-create` audit entry in the same transaction.
    ///
    /// - Parameters:
    ///   - optionsJSON: `PublicKeyCredentialCreationOptionsJSON` from the relying party.
    ///   - presence: called after the gate and before the key is made: how the person's presence
    ///     was established (consent); it throws to decline (audited as refused).
    /// - Returns: `RegistrationResponseJSON` for the relying party.
    /// - Throws: ``SharedWebCredentialsError`` whose message starts with the WebAuthn error name:
    ///   `SecurityError` (invalid-input for an IP address, a public suffix or a malformed RP ID;
    ///   missing-entitlement, not-approved or network-failure from the gate), `InvalidStateError`,
    ///   `NotSupportedError`, `TypeError`, `EncodingError` (invalid-input), `NotAllowedError`
    ///   (declined when verification is required).
    public func createPasskey(
        optionsJSON: [UInt8], presence: () async throws -> AuthenticatorSignals.Presence
    ) async throws -> RegistrationResponseJSON {
        var rpText: String?
        return try await passkeyAudited(.passkeyCreate, rpID: { rpText }) {
            let options = try webAuthn { try PasskeyCreationOptions(json: optionsJSON) }
            rpText = options.rpID
            let (rpID, client, _) = try await approvedRelyingParty(options.rpID, readingPasskeys: false)
            let granted = try await presence()
            let signals = AuthenticatorSignals(presence: granted, verification: nil, backup: Self.passkeyBackup)
            let entry = event(
                .passkeyCreate, domain: DomainTarget(normalizedHost: rpID.value, port: nil), account: options.userName)
            return try await vault.write(records: { [vault] db, keys, commitment in
                let existing = try PasskeyStore.find(rpID, db: db, keys: keys, vault: vault)
                let registration = try webAuthn {
                    try PasskeyAuthenticator.create(
                        options: options, client: client, approvedDomains: [rpID.value], existing: existing,
                        signals: signals)
                }
                try PasskeyStore.insert(registration.passkey, db: db, keys: keys, commitment: commitment)
                try AuditChain.append(entry, at: Date(), db: db, keys: keys, path: vault.path)
                return registration.response
            })
        }
    }

    /// Signs in with one of the app's passkeys for the RP (`navigator.credentials.get`): those
    /// `allowCredentials` names, or without it any of the RP's (the most recently created one
    /// answers). The assertion is returned only once its `passkey-get` entry is written.
    ///
    /// - Parameters:
    ///   - optionsJSON: `PublicKeyCredentialRequestOptionsJSON` from the relying party.
    ///   - presence: called after the gate, once a passkey matches and before it signs.
    /// - Throws: as ``createPasskey(optionsJSON:presence:)``, and `NotAllowedError`
    ///   (item-not-found) when no passkey matches.
    public func getPasskey(
        optionsJSON: [UInt8], presence: () async throws -> AuthenticatorSignals.Presence
    ) async throws -> AuthenticationResponseJSON {
        try await getPasskey(optionsJSON: optionsJSON, prefetched: nil, presence: presence)
    }

    /// ``getPasskey(optionsJSON:presence:)`` with its first read done ahead, when `prefetched` is
    /// for the RP ID the options name (else it is read now).
    package func getPasskey(
        optionsJSON: [UInt8], prefetched: PrefetchedRelyingParty?,
        presence: () async throws -> AuthenticatorSignals.Presence
    ) async throws -> AuthenticationResponseJSON {
        var rpText: String?
        return try await passkeyAudited(.passkeyGet, rpID: { rpText }) {
            let options = try webAuthn { try PasskeyRequestOptions(json: optionsJSON) }
            rpText = options.rpID
            let (rpID, client, read) = try await approvedRelyingParty(
                options.rpID, readingPasskeys: true, prefetched: prefetched?.text == options.rpID ? prefetched : nil)
            var passkeys = read ?? []
            if read == nil {
                passkeys = try await vault.read { [vault] db, keys in
                    try PasskeyStore.find(rpID, db: db, keys: keys, vault: vault)
                }
            }
            let candidates = PasskeyAuthenticator.matching(options, rpID: rpID, among: passkeys)
            guard let chosen = candidates.max(by: { $0.created < $1.created }) else {
                throw WebAuthnError(.notAllowed, .itemNotFound, "no passkey for \(rpID.value) matches the request")
                    .sharedWebCredentialsError
            }
            let consented = try await presence()
            let signals = AuthenticatorSignals(presence: consented, verification: nil, backup: Self.passkeyBackup)
            let response = try webAuthn {
                try PasskeyAuthenticator.get(
                    options: options, client: client, approvedDomains: [rpID.value], passkeys: [chosen],
                    signals: signals, choose: { $0.first })
            }
            try await vault.audit.append(
                event(
                    .passkeyGet, domain: DomainTarget(normalizedHost: rpID.value, port: nil),
                    account: chosen.userName))
            return response
        }
    }

    /// The RP ID of the options, once it is a valid domain, the app has an entry naming exactly
    /// it, and the gate approves the app for it; the app's client (its origin); and, when
    /// `readingPasskeys`, the RP's passkeys as the same read transaction found them (nil when the
    /// site had to be asked first, so they were not read).
    ///
    /// The app, its stored verdict and the passkeys are read in one transaction, as a password
    /// request reads its credentials (``SharedWebCredentials/request(domain:account:includeShared:)``),
    /// or were read ahead with the token (`prefetched`).
    private func approvedRelyingParty(
        _ text: String, readingPasskeys: Bool, prefetched: PrefetchedRelyingParty? = nil
    ) async throws -> (RelyingPartyID, PasskeyClient, [Passkey]?) {
        let rpID = try webAuthn { try RelyingPartyID(text) }
        let standing: StandingRelyingParty
        if let prefetched {
            standing = try prefetched.standing.get()
        } else {
            standing = try await vault.read { [self] db, keys in
                try standingRelyingParty(rpID, readingPasskeys: readingPasskeys, db: db, keys: keys, registration: nil)
            }
        }
        let registered = standing.registered
        if !standing.settled {
            _ = try await gate.check(app: registered.identifier, entry: standing.entry, stored: standing.stored)
        }
        let exact = registered.entitlements.webcredentialsEntries.contains {
            !$0.isWildcard && $0.port == nil && $0.host == rpID.value
        }
        guard exact else {
            throw WebAuthnError(
                .security, .notApproved,
                "\(app) may use passkeys only for a host it names exactly: add webcredentials:\(rpID.value) (no wildcard, no port) and have the site approve it"
            ).sharedWebCredentialsError
        }
        let identifier = registered.identifier
        let client = try PasskeyClient(
            identifier, signingCertificate: identifier.platform == .android ? identifier.signingCertificates.first : nil
        )
        return (rpID, client, standing.passkeys)
    }

    /// What one read transaction tells about the RP `rpID`: the app's registration (its `apps`
    /// row when the caller read it already), the entry covering the RP and its stored verdict,
    /// whether that verdict settles the gate without asking the site, and then the RP's passkeys.
    private func standingRelyingParty(
        _ rpID: RelyingPartyID, readingPasskeys: Bool, db: any StoreReader, keys: VaultKeys,
        registration: AppRegistry.ReadRegistration?
    ) throws -> StandingRelyingParty {
        let registered = try registeredApp(db: db, keys: keys, registration: registration)
        let entry = try gate.entry(of: registered, covering: DomainTarget(normalizedHost: rpID.value, port: nil))
        let stored = try vault.associations.record(app: registered.identifier, entry: entry, db: db, keys: keys)
        let settled = try gate.decide(app: registered.identifier, entry: entry, stored: stored) != nil
        let passkeys = settled && readingPasskeys ? try PasskeyStore.find(rpID, db: db, keys: keys, vault: vault) : nil
        return StandingRelyingParty(
            registered: registered, entry: entry, stored: stored, settled: settled, passkeys: passkeys)
    }

    /// An assertion's first read, done ahead inside a read transaction of the caller's (the token
    /// check's, ``AppTokenStore/authenticate(_:now:prefetching:)``), for the RP ID `text` of the
    /// options. Pass it to ``getPasskey(optionsJSON:prefetched:presence:)``, which throws (and
    /// audits) a refusal it met. As for a password request, only the library's own errors are
    /// kept for later; an engine's error fails the caller's transaction, whose storage names it.
    func prefetchRelyingParty(
        _ text: String, db: any StoreReader, keys: VaultKeys, registration: AppRegistry.ReadRegistration?
    ) throws -> PrefetchedRelyingParty {
        let standing: Result<StandingRelyingParty, SharedWebCredentialsError>
        do {
            let rpID = try webAuthn { try RelyingPartyID(text) }
            standing = .success(
                try standingRelyingParty(rpID, readingPasskeys: true, db: db, keys: keys, registration: registration))
        } catch let refusal as SharedWebCredentialsError {
            standing = .failure(refusal)
        }
        return PrefetchedRelyingParty(text: text, standing: standing)
    }

    /// An assertion's first read, done ahead (``prefetchRelyingParty(_:db:keys:registration:)``).
    package struct PrefetchedRelyingParty: Sendable {
        fileprivate let text: String
        fileprivate let standing: Result<StandingRelyingParty, SharedWebCredentialsError>
    }

    fileprivate struct StandingRelyingParty: Sendable {
        let registered: RegisteredApp
        let entry: AssociatedDomainEntry
        let stored: AssociationRecord?
        /// Whether the stored verdict settles the gate, so that the site need not be asked.
        let settled: Bool
        /// The RP's passkeys, when settled and they were to be read.
        let passkeys: [Passkey]?
    }

    /// Runs `body` as a task on the engine's threads (``EngineThreads/inPlace(_:)``: its
    /// transactions and audit entry run there in place); a library error is recorded as a refusal
    /// of `operation` for the RP ID (when the options named one) and thrown.
    private func passkeyAudited<T>(
        _ operation: AuditOperation, rpID: () -> String?, _ body: () async throws -> T
    ) async throws -> T {
        try await vault.storage.threads.inPlace {
            do {
                return try await body()
            } catch let error as SharedWebCredentialsError {
                _ = try? await vault.audit.append(
                    AuditEvent(
                        actor: .app(app), operation: operation, domain: rpID().map { String($0.prefix(253)) },
                        outcome: .refused(error.code)))
                throw error
            }
        }
    }
}

/// Runs a passkey core call, its ``WebAuthnError`` turned into the library's error, the message
/// starting with the WebAuthn name (`SecurityError: ...`).
func webAuthn<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as WebAuthnError {
        throw error.sharedWebCredentialsError
    }
}
