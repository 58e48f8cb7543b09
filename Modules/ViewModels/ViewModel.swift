import Foundation
import Observation
import Reducers
import StateStore

/// What every view model is.
@dynamicMemberLookup
public protocol ViewModel: AnyObject, Observable, Sendable {
    /// Everything the screen shows, as a plain value for text rendering, golden transcripts and JSON.
    associatedtype Snapshot: Equatable & Sendable & Codable
    /// What the screen's intents send.
    associatedtype Action: Sendable

    /// The store the view model reads.
    var store: Store<Snapshot, Action> { get }

    /// What the screen shows now; reading it registers for Observation.
    var snapshot: Snapshot { get }

    /// What the screen shows now, without registering for Observation.
    var currentSnapshot: Snapshot { get }
}

extension ViewModel {
    /// What the screen shows now; reading it registers for Observation.
    public var snapshot: Snapshot { store.state }

    /// What the screen shows now, without registering for Observation.
    public var currentSnapshot: Snapshot { store.currentState }

    /// A field of what the screen shows now; reading it registers for Observation.
    public subscript<Field>(dynamicMember field: KeyPath<Snapshot, Field>) -> Field {
        snapshot[keyPath: field]
    }

    /// ``currentSnapshot`` and its revision, read together: equal revisions, equal snapshots.
    package var currentSnapshotAndRevision: (state: Snapshot, revision: UInt64) { store.currentStateAndRevision }

    package var revision: UInt64 { store.revision }
}

/// A view model of one feature's screen, whose snapshot is made from that feature's state alone.
public protocol FeatureViewModel: ViewModel {
    /// The state of the feature the screen shows.
    associatedtype FeatureState: Sendable

    /// Where the feature lies in the app's store, and how its screen is made from its state.
    static var feature: FeatureScreen<FeatureState, Action, Snapshot> { get }

    /// The view model reading `snapshots`, a store already scoped to the screen's snapshot.
    init(snapshots: Store<Snapshot, Action>)
}

extension FeatureViewModel {
    /// The view model of a store running the feature.
    public init(store: Store<FeatureState, Action>) {
        self.init(snapshots: store.scope(deriving: Self.feature.makeDerivation(), action: { $0 }))
    }

    /// The view model of the feature's screen in the app.
    public init(appStore: Store<AppFeature.State, AppFeature.Action>) {
        self.init(store: Self.feature.scope(appStore))
    }
}

/// A feature's place in the app's store and the snapshot its screen shows
/// (``FeatureViewModel/feature``).
public struct FeatureScreen<State: Sendable, Action: Sendable, Snapshot: Sendable>: Sendable {
    /// The app's store scoped to the feature.
    public let scope: @Sendable (Store<AppFeature.State, AppFeature.Action>) -> Store<State, Action>
    /// What the screen shows for a state of the feature.
    public let snapshot: @Sendable (State) -> Snapshot
    /// Makes what a view model's store derives its snapshots with: `snapshot`, or for a screen
    /// that works a snapshot out faster from the one before, a function that remembers it.
    let makeDerivation: @Sendable () -> @Sendable (State) -> Snapshot

    /// The feature `scope` finds in the app's store, whose screen `snapshot` makes.
    public init(
        scope: @escaping @Sendable (Store<AppFeature.State, AppFeature.Action>) -> Store<State, Action>,
        snapshot: @escaping @Sendable (State) -> Snapshot
    ) {
        self.scope = scope
        self.snapshot = snapshot
        makeDerivation = { snapshot }
    }

    /// The feature `scope` finds, whose screen `snapshot` makes from a state and the last one.
    init(
        scope: @escaping @Sendable (Store<AppFeature.State, AppFeature.Action>) -> Store<State, Action>,
        snapshot: @escaping @Sendable (State, _ before: Snapshot?) -> Snapshot
    ) {
        self.scope = scope
        self.snapshot = { snapshot($0, nil) }
        makeDerivation = {
            // A store derives one snapshot at a time, under its tree's lock: this lock is never waited on.
            let last = Locked<Snapshot?>(nil)
            return { state in
                let made = snapshot(state, last.withLock { $0 })
                last.withLock { $0 = made }
                return made
            }
        }
    }
}

/// A view model a host reads after each intent: its snapshot with a revision that moves
/// whenever the snapshot may have changed, so equal revisions mean an equal snapshot.
package protocol HostedViewModel: ViewModel {
    var currentSnapshotAndRevision: (state: Snapshot, revision: UInt64) { get }
    var revision: UInt64 { get }
}

enum Display {
    /// `"•"` per character typed.
    static func masked(count: Int) -> String {
        String(repeating: "•", count: count)
    }
}

extension Display {
    /// `"2027-01-15 08:00 UTC"`: the same on every machine, so transcripts are stable.
    static func dateTime(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        // Beyond the years 0–9999 a date is not worth formatting by hand.
        guard seconds.isFinite, seconds >= -62_167_219_200, seconds < 253_402_300_800 else { return calendarDateTime(date) }
        let total = Int64(seconds)
        let (days, secondOfDay) = total.quotientAndRemainder(dividingBy: 86_400)
        let (day, second) = secondOfDay < 0 ? (days - 1, secondOfDay + 86_400) : (days, secondOfDay)
        let (year, month, dayOfMonth) = civilDate(daysSince1970: day)
        var text: [UInt8] = []
        text.reserveCapacity(20)
        func put(_ value: Int64, digits: Int) {
            var divisor: Int64 = 1
            for _ in 1..<digits { divisor *= 10 }
            while divisor > 0 {
                text.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                divisor /= 10
            }
        }
        put(year, digits: 4)
        text.append(UInt8(ascii: "-"))
        put(month, digits: 2)
        text.append(UInt8(ascii: "-"))
        put(dayOfMonth, digits: 2)
        text.append(UInt8(ascii: " "))
        put(second / 3_600, digits: 2)
        text.append(UInt8(ascii: ":"))
        put(second % 3_600 / 60, digits: 2)
        text.append(contentsOf: " UTC".utf8)
        return String(decoding: text, as: UTF8.self)
    }

    /// The proleptic Gregorian date of a day counted from 1970-01-01 (Howard Hinnant's
    /// `civil_from_days`): what `Calendar` computes, without building one per row.
    static func civilDate(daysSince1970 days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// ``dateTime(_:)`` through `Calendar`, for dates too far out to compute by hand.
    static func calendarDateTime(_ date: Date) -> String {
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
        if let ascii = asciiOneLine(text, limit: limit) { return ascii }
        var kept = ""
        var keptCount = 0
        var pendingSpace = false
        for character in text {
            if character.isBlank {
                pendingSpace = keptCount > 0
                continue
            }
            if pendingSpace {
                kept.append(" ")
                keptCount += 1
                pendingSpace = false
            }
            kept.append(character)
            keptCount += 1
            if keptCount > limit { return String(kept.prefix(limit - 1)) + "…" }
        }
        return kept
    }

    /// ``oneLine(_:limit:)`` byte by byte while the text is ASCII; `nil` when a byte that is
    /// not comes before the line is complete (the caller then reads characters).
    private static func asciiOneLine(_ text: some StringProtocol, limit: Int) -> String? {
        var kept: [UInt8] = []
        kept.reserveCapacity(Swift.min(text.utf8.count, limit + 1))
        var pendingSpace = false
        for byte in text.utf8 {
            guard byte < 0x80 else { return nil }
            if byte == 0x20 || (0x09...0x0D).contains(byte) {
                pendingSpace = !kept.isEmpty
                continue
            }
            if pendingSpace {
                kept.append(0x20)
                pendingSpace = false
            }
            kept.append(byte)
            if kept.count > limit { return String(decoding: kept.prefix(limit - 1), as: UTF8.self) + "…" }
        }
        return String(decoding: kept, as: UTF8.self)
    }

    /// What follows the first line of `text` (after any blank start), the rest of a note.
    static func afterFirstLine(_ text: String) -> Substring {
        let end: String.Index? = {
            var seenText = false
            var index = text.utf8.startIndex
            while index != text.utf8.endIndex {
                let byte = text.utf8[index]
                guard byte < 0x80 else { return nil }
                if (0x0A...0x0D).contains(byte) {
                    if seenText { return index }
                } else if byte != 0x20, byte != 0x09 {
                    seenText = true
                }
                index = text.utf8.index(after: index)
            }
            return text.endIndex
        }()
        // An ASCII line ends at a byte offset; other text is read by characters.
        if let end { return text[end...] }
        return text.drop { $0.isWhitespace }.drop { !$0.isNewline }
    }
}

extension Character {
    /// `isWhitespace`, answered without a Unicode property lookup for ASCII.
    var isBlank: Bool {
        if let ascii = asciiValue { return ascii == 32 || (9...13).contains(ascii) }
        return isWhitespace
    }
}
