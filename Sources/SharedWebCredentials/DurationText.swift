import Foundation

/// A duration written as a positive whole number and a unit, such as `90s`, `15m`, `12h`, `30d`
/// or `2w` (`--expires`, `--lock-after`, `--consent-timeout`).
public enum DurationText {
    private static let units: [Character: TimeInterval] = ["s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604_800]

    /// The number of seconds `text` stands for; `option` names the flag in the error.
    public static func seconds(_ text: String, option: String) throws -> TimeInterval {
        guard let unit = text.last, let scale = units[unit], !text.dropLast().isEmpty,
            text.dropLast().allSatisfy({ $0.isASCII && $0.isNumber }), let count = Int(text.dropLast()), count > 0
        else {
            throw SharedWebCredentialsError(
                .invalidInput,
                "\(option) \"\(text)\" is not a duration: give a positive whole number and a unit s, m, h, d or w, such as 30d"
            )
        }
        return TimeInterval(count) * scale
    }
}
