/// A recorder of a store's history that can restore any recorded point: undo, redo, jump.
///
/// It records each action the store reduces together with the state after it. Restoring puts a
/// recorded state back into the store without reducing anything, so no effect runs again;
/// effects already running carry on. A new action after an undo discards the redo branch.
/// At most `capacity` entries are kept; the oldest go first.
///
/// ```swift
/// let timeline = Timeline(recording: store, capacity: 500)
/// store.send(.incrementTapped)
/// timeline.undo()                 // count back to 0, no effect re-run
/// timeline.redo()
/// ```
public final class Timeline<State: Sendable, Action: Sendable>: Sendable {
    /// One recorded point.
    public struct Entry: Sendable {
        /// The entry's number; the first entry recorded is 0, and numbers are never reused.
        public let index: Int
        /// The action that led here, or `nil` for the state when recording began.
        public let action: Action?
        /// The state after the action.
        public let state: State
    }

    /// Why a jump was refused.
    public enum JumpError: Error, Equatable, CustomStringConvertible {
        /// No entry has that number (it was never recorded, or was dropped as the oldest).
        case noSuchEntry(Int, available: ClosedRange<Int>)

        /// Names the entry and the numbers available.
        public var description: String {
            switch self {
            case .noSuchEntry(let index, let available):
                "no entry \(index) in the timeline (entries \(available.lowerBound)…\(available.upperBound) are available)"
            }
        }
    }

    private struct History {
        var entries: BoundedBuffer<Entry>
        var nextIndex = 0
        /// Offset in `entries` of the entry the store currently shows.
        var cursor = 0
    }

    private let store: RootStore<State, Action>
    private let history: Locked<History>
    private let subscription: Locked<StoreSubscription?>

    /// Starts recording `store`, keeping at most `capacity` entries (at least 2).
    public init(recording store: RootStore<State, Action>, capacity: Int) {
        self.store = store
        var history = History(entries: BoundedBuffer(capacity: max(2, capacity)))
        history.entries.append(Entry(index: 0, action: nil, state: store.currentState))
        history.nextIndex = 1
        self.history = Locked(history)
        subscription = Locked(nil)
        let recorded = self.history
        let subscription = store.observeActions { action, state in
            recorded.withLock { history in
                // A new action after undo replaces the redo branch.
                let redoCount = history.entries.count - 1 - history.cursor
                if redoCount > 0 { history.entries.removeLast(redoCount) }
                history.entries.append(Entry(index: history.nextIndex, action: action, state: state))
                history.nextIndex += 1
                history.cursor = history.entries.count - 1
            }
        }
        self.subscription.withLock { $0 = subscription }
    }

    /// Stops recording; what was recorded stays available.
    public func stopRecording() {
        subscription.withLock { $0 = nil }
    }

    /// Every recorded entry, oldest first.
    public var entries: [Entry] {
        history.withLock { history in
            (0..<history.entries.count).map { history.entries[$0] }
        }
    }

    /// The entry the store currently shows.
    public var current: Entry {
        history.withLock { $0.entries[$0.cursor] }
    }

    /// Whether there is an earlier entry to go back to.
    public var canUndo: Bool {
        history.withLock { $0.cursor > 0 }
    }

    /// Whether there is a later entry to go forward to.
    public var canRedo: Bool {
        history.withLock { $0.cursor < $0.entries.count - 1 }
    }

    /// Restores the previous entry's state.
    ///
    /// - Returns: Whether there was one.
    @discardableResult
    public func undo() -> Bool {
        move { $0.cursor > 0 ? $0.cursor - 1 : nil }
    }

    /// Restores the next entry's state, after an undo.
    ///
    /// - Returns: Whether there was one.
    @discardableResult
    public func redo() -> Bool {
        move { $0.cursor < $0.entries.count - 1 ? $0.cursor + 1 : nil }
    }

    /// Restores the state of the entry numbered `index`.
    public func jump(to index: Int) throws(JumpError) {
        var failure: JumpError?
        let moved = move { history in
            let first = history.entries[0].index
            let offset = index - first
            guard offset >= 0, offset < history.entries.count else {
                failure = .noSuchEntry(index, available: first...(first + history.entries.count - 1))
                return nil
            }
            return offset
        }
        if let failure, !moved { throw failure }
    }

    private func move(_ target: (History) -> Int?) -> Bool {
        let state: State? = history.withLock { history in
            guard let offset = target(history) else { return nil }
            history.cursor = offset
            return history.entries[offset].state
        }
        guard let state else { return false }
        store.restore(state)
        return true
    }
}
