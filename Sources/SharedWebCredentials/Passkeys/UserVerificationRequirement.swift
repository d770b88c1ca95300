/// `userVerification`: whether the relying party wants the person verified.
public enum UserVerificationRequirement: String, Sendable {
    /// Fail unless the person is verified (UV).
    case required
    /// Verify if possible (the default).
    case preferred
    /// Do not bother verifying.
    case discouraged

    /// The value a member names; an unknown value counts as the default, `preferred` (WebAuthn
    /// declares these members as strings so that new values do not break clients).
    init(member: String?) {
        self = member.flatMap(Self.init(rawValue:)) ?? .preferred
    }
}
