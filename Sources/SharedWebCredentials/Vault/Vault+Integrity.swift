/// What ``Vault/integrityReport()`` found.
public struct VaultIntegrityReport: Sendable, Equatable {
    /// Credentials opened.
    public let credentialsChecked: Int
    /// Credentials that failed authentication.
    public let damagedCredentials: Int
    /// Never-save markers that failed authentication.
    public let damagedNeverSaveMarkers: Int
    /// Passkeys opened.
    public let passkeysChecked: Int
    /// Passkeys that failed authentication or do not match their blind indexes.
    public let damagedPasskeys: Int
    /// Registered apps whose rows failed authentication (as stored, quoted).
    public let untrustedApps: [String]
    /// Stored verdicts whose rows failed authentication.
    public let untrustedVerdicts: Int
    /// App tokens whose rows failed authentication (forged or altered: they let nothing in).
    public let untrustedAppTokens: Int
    /// Approved browsers whose rows failed authentication (forged or altered: they associate nothing).
    public let untrustedBrowserAssociations: Int
    /// Whether the live records match the sealed record commitment: false when a record was
    /// rolled back, brought back after deletion or deleted behind swcred's back.
    public let recordSetMatchesCommitment: Bool
    /// Whether the sealed grant set of app, verdict, token and browser rows (``grantRowsPutBack``)
    /// is there, its sum authentic, and its members the ones the sum sums.
    public let grantSetIsAuthentic: Bool
    /// Authentic app, verdict and token rows that are not in their sealed set: put back from an
    /// older copy or rolled back behind swcred's back (they grant nothing).
    public let grantRowsPutBack: Int
    /// Rows of the sealed set that are gone from the tables or no longer authentic: removed or
    /// altered behind swcred's back.
    public let grantRowsMissing: Int
    /// Whether the key epoch, record commitment, grant set and audit head match the seal that
    /// binds them: false when one of them was set back alone.
    public let stateSealMatches: Bool
    /// Whether the parent-domain index holds exactly the rows the credentials call for.
    public let parentDomainIndexMatches: Bool
    /// What is wrong with the audit chain (``AuditLog/verify()``), or nil when it verifies.
    public let auditLogProblem: String?

    /// Whether nothing failed.
    public var isIntact: Bool {
        damagedCredentials == 0 && damagedNeverSaveMarkers == 0 && damagedPasskeys == 0 && untrustedApps.isEmpty
            && untrustedVerdicts == 0 && untrustedAppTokens == 0 && untrustedBrowserAssociations == 0
            && recordSetMatchesCommitment && grantSetIsAuthentic && grantRowsPutBack == 0
            && grantRowsMissing == 0 && stateSealMatches && parentDomainIndexMatches
            && auditLogProblem == nil
    }

    /// How many rows of each table failed authentication, for the tables with any, in schema
    /// order: what `status --verify` lists.
    public var unauthenticRows: [(table: String, count: Int)] {
        [
            ("credentials", damagedCredentials), ("never_save", damagedNeverSaveMarkers), ("passkeys", damagedPasskeys),
            ("apps", untrustedApps.count), ("associations", untrustedVerdicts), ("app_tokens", untrustedAppTokens),
            ("browser_associations", untrustedBrowserAssociations),
        ].filter { $0.1 > 0 }
    }

    /// Every problem found, one sentence each.
    public var problems: [String] {
        var problems: [String] = []
        if damagedCredentials > 0 {
            problems.append("\(damagedCredentials) credential(s) failed authentication (altered or damaged)")
        }
        if damagedNeverSaveMarkers > 0 {
            problems.append("\(damagedNeverSaveMarkers) never-save marker(s) failed authentication")
        }
        if damagedPasskeys > 0 {
            problems.append("\(damagedPasskeys) passkey(s) failed authentication (altered or damaged)")
        }
        if !untrustedApps.isEmpty {
            problems.append(
                "the registration of \(untrustedApps.joined(separator: ", ")) failed authentication (remove it with `swcred app remove` and register it again)"
            )
        }
        if untrustedVerdicts > 0 {
            problems.append(
                "\(untrustedVerdicts) stored verdict(s) failed authentication (they count as missing and are verified again)"
            )
        }
        if untrustedAppTokens > 0 {
            problems.append(
                "\(untrustedAppTokens) app token(s) failed authentication (forged or altered: they let nothing in; revoke them with `swcred app token revoke`)"
            )
        }
        if untrustedBrowserAssociations > 0 {
            problems.append(
                "\(untrustedBrowserAssociations) browser association(s) failed authentication (forged or altered: they associate nothing; revoke them with `swcred browser revoke`)"
            )
        }
        if !recordSetMatchesCommitment {
            problems.append(
                "the records do not match their sealed commitment: a record was rolled back to an older copy, brought back after it was deleted, or deleted behind swcred's back"
            )
        }
        if !grantSetIsAuthentic {
            problems.append(
                "the sealed grant set of registered apps, stored verdicts, app tokens and browsers is missing, failed authentication, or has members that do not match its sealed sum (a member row was put back, inserted or deleted behind swcred's back): nothing it holds grants access until `swcred rekey` or a backup"
            )
        }
        if grantRowsPutBack > 0 {
            problems.append(
                "\(grantRowsPutBack) app, verdict or token row(s) are not in their sealed set: put back from an older copy or rolled back behind swcred's back (they grant nothing)"
            )
        }
        if grantRowsMissing > 0 {
            problems.append(
                "\(grantRowsMissing) app, verdict or token row(s) of the sealed set are gone or no longer authentic: removed or altered behind swcred's back"
            )
        }
        if !stateSealMatches {
            problems.append(
                "the key epoch, record commitment, grant set and audit head do not match the seal that binds them: one of them was set back to an older copy"
            )
        }
        if !parentDomainIndexMatches {
            problems.append(
                "the parent-domain index does not match the credentials (rows were added or removed behind swcred's back; requests without a domain may miss credentials)"
            )
        }
        if let auditLogProblem {
            problems.append("the audit log is broken: \(auditLogProblem)")
        }
        return problems
    }
}

extension Vault {
    /// Checks everything this vault authenticates, in one read transaction: opens every
    /// credential, passkey and never-save marker, checks the MAC of every app and verdict, compares the
    /// set of live records with the sealed record commitment, the apps, verdicts and tokens with
    /// their sealed set, the sealed columns with the seal that binds them, and the
    /// parent-domain index with the credentials, and walks the audit chain. O(records + audit entries).
    public func integrityReport() throws -> VaultIntegrityReport {
        try read { db, keys in
            let credentials = try CredentialStore.verify(db, keys: keys)
            let markers = try NeverSaveStore.verify(db, keys: keys)
            let passkeys = try PasskeyStore.verify(db, keys: keys)
            let matches: Bool
            do {
                matches = try RecordCommitment.compute(db, keys: keys).matches(
                    RecordCommitment.load(db, keys: keys, path: path))
            } catch let error as SharedWebCredentialsError where error.code == .integrityFailure {
                matches = false
            }
            let sealMatches: Bool
            do {
                _ = try SealedState.load(db, keys: keys, path: path)
                sealMatches = true
            } catch let error as SharedWebCredentialsError where error.code == .integrityFailure {
                sealMatches = false
            }
            let grants = try GrantSet.difference(db, keys: keys, path: path)
            return VaultIntegrityReport(
                credentialsChecked: credentials.checked, damagedCredentials: credentials.damaged,
                damagedNeverSaveMarkers: markers.damaged, passkeysChecked: passkeys.checked,
                damagedPasskeys: passkeys.damaged, untrustedApps: try AppRegistry.untrustedApps(db, keys: keys),
                untrustedVerdicts: try AssociationStore.untrustedCount(db, keys: keys),
                untrustedAppTokens: try db.rows(AppTokenStore.select).count {
                    AppTokenStore.authentic($0, keys: keys) == nil
                },
                untrustedBrowserAssociations: try db.rows(BrowserAssociationStore.table.select).count {
                    !BrowserAssociationStore.table.isAuthentic($0, keys: keys)
                },
                recordSetMatchesCommitment: matches, grantSetIsAuthentic: grants?.membersMatchSum ?? false,
                grantRowsPutBack: grants?.putBack ?? 0, grantRowsMissing: grants?.removed ?? 0,
                stateSealMatches: sealMatches,
                parentDomainIndexMatches: try ParentDomains.matches(db, keys: keys),
                auditLogProblem: try AuditChain.verify(db, keys: keys, path: path).problem)
        }
    }

    /// Runs ``integrityReport()`` and throws `.integrityFailure` naming every problem unless the
    /// vault is intact: what a long-running service calls at start before serving anything.
    @discardableResult
    public func verifyIntegrity() throws -> VaultIntegrityReport {
        let report = try integrityReport()
        guard report.isIntact else {
            throw SharedWebCredentialsError(
                .integrityFailure,
                "The vault \(path) failed its integrity check: \(report.problems.joined(separator: "; ")). Restore it from a backup."
            )
        }
        return report
    }
}
