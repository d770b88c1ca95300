/// What the owner keeps with a credential besides its password: a label (a title), free-form
/// notes and a one-time-password URI. All of it is sealed with the password; none of it is
/// ever released to an app.
public struct CredentialDetails: Sendable, Equatable {
    /// A short title, such as an imported entry's name. Nil when there is none.
    public var label: String?
    /// Free-form notes. Nil when there are none.
    public var notes: String?
    /// An `otpauth://` URI for the account's one-time passwords. Nil when there is none.
    public var otpAuth: String?

    /// Details with each field given; an empty string counts as none.
    public init(label: String? = nil, notes: String? = nil, otpAuth: String? = nil) {
        self.label = label?.isEmpty == true ? nil : label
        self.notes = notes?.isEmpty == true ? nil : notes
        self.otpAuth = otpAuth?.isEmpty == true ? nil : otpAuth
    }

    /// No label, notes or one-time-password URI.
    public static let none = CredentialDetails()
}
