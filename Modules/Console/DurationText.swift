/// Durations as people type them — `300ms`, `2s`, `1.5s`, `1m`.
public enum DurationText {
    /// The longest duration read: a day.
    public static let longest: Duration = .seconds(86_400)

    /// Why a text is not a duration.
    public enum Problem: Error, Equatable, Sendable {
        /// It is not a number (finite, not negative) followed by `ms`, `s` or `m`.
        case notADuration
        /// It is longer than ``DurationText/longest``.
        case tooLong
    }

    /// `text` as a duration, to the millisecond.
    public static func parse(_ text: String) -> Result<Duration, Problem> {
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60)]
        for (unit, seconds) in units where text.hasSuffix(unit) {
            guard let value = Double(text.dropLast(unit.count)), value.isFinite, value >= 0 else { continue }
            let milliseconds = value * seconds * 1000
            guard milliseconds <= Double(longest.components.seconds * 1000) else { return .failure(.tooLong) }
            return .success(.milliseconds(Int64(milliseconds.rounded())))
        }
        return .failure(.notADuration)
    }
}
