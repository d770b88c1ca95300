/// Arithmetic on numbers read from the store. Anyone who can write the database can put any
/// 64-bit value in a column, and Swift traps on an overflowing `+`: the process would die (a
/// whole service, on its next request) instead of failing one operation. Every sum on a stored
/// number goes through here and fails with `.integrityFailure` instead.
enum StoredNumber {
    /// `value + amount`; throws `.integrityFailure` naming `what` (the stored number, as
    /// "the audit log's last entry number") when the sum does not fit in 64 bits.
    static func adding(
        _ amount: Int64, to value: Int64, _ what: @autoclosure () -> String, path: String
    ) throws
        -> Int64
    {
        let (sum, overflow) = value.addingReportingOverflow(amount)
        guard !overflow else {
            throw SharedWebCredentialsError(
                .integrityFailure,
                "\(what()) in \(path) is \(value), which no swcred writes (one more would not fit in 64 bits): the vault was altered outside swcred. Nothing was changed; restore the vault from a backup."
            )
        }
        return sum
    }
}
