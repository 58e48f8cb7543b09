import Foundation
import Observation
import StateStore

/// What every view model is: a read-only, display-ready view of a store, with intents that send
/// actions.
///
/// A view model reads a store scoped to its ``Snapshot`` — the plain value of everything the
/// screen shows — so it is observable (Observation: `withObservationTracking`, `Observations`,
/// SwiftUI) and notifies exactly when that snapshot changes, not when other state does. It
/// holds no state of its own and is safe to use from any thread.
public protocol ViewModel: AnyObject, Observable, Sendable {
    /// Everything the screen shows, as a plain value for text rendering, golden transcripts and JSON.
    associatedtype Snapshot: Equatable & Sendable & Codable

    /// What the screen shows now; reading it registers for Observation.
    var snapshot: Snapshot { get }
}

/// The formatting decisions view models share.
enum Display {
    /// `"•"` per character typed.
    static func masked(count: Int) -> String {
        String(repeating: "•", count: count)
    }
}

extension Display {
    /// `"2027-01-15 08:00 UTC"`: the same on every machine, so transcripts are stable.
    static func dateTime(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        func two(_ value: Int?) -> String {
            let value = value ?? 0
            return value < 10 ? "0\(value)" : "\(value)"
        }
        return "\(parts.year ?? 0)-\(two(parts.month))-\(two(parts.day)) \(two(parts.hour)):\(two(parts.minute)) UTC"
    }

    /// `text` on one line, whitespace runs collapsed, cut to `limit` characters with `…`.
    static func oneLine(_ text: some StringProtocol, limit: Int) -> String {
        let collapsed = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard collapsed.count > limit else { return collapsed }
        return String(collapsed.prefix(limit - 1)) + "…"
    }
}
