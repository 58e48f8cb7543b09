import Synchronization

/// A recorder of a store's history that can restore any recorded point: undo, redo, jump.
public final class Timeline<State: Sendable, Action: Sendable>: @unchecked Sendable {
    /// One recorded point.
    public struct Entry: Sendable {
        /// The entry's number; the first entry recorded is 0, and numbers are never reused.
        public let index: Int
        /// The action that led here, or `nil` for the state when recording began.
        public let action: Action?
    }

    /// How much history a timeline keeps.
    public struct Limits: Sendable, Equatable {
        /// Most entries kept (at least 2).
        public var entries: Int
        /// Most bytes the kept actions and checkpoints may take, as estimated.
        public var bytes: Int

        /// Limits of `entries` entries and `bytes` bytes (by default 10,000 entries, 64 MiB).
        public init(entries: Int = 10_000, bytes: Int = 64 << 20) {
            self.entries = Swift.max(2, entries)
            self.bytes = Swift.max(1, bytes)
        }
    }

    /// How many bytes a state and an action take, for ``Limits/bytes``.
    public struct Footprint: Sendable {
        /// The bytes a state takes.
        public var state: @Sendable (State) -> Int
        /// The bytes an action takes.
        public var action: @Sendable (Action) -> Int

        /// A footprint from two estimates.
        public init(state: @escaping @Sendable (State) -> Int, action: @escaping @Sendable (Action) -> Int) {
            self.state = state
            self.action = action
        }

        /// The types' inline sizes: right for states and actions without collections or text.
        public static var inline: Footprint {
            Footprint(state: { _ in MemoryLayout<State>.size }, action: { _ in MemoryLayout<Action>.size })
        }
    }

    /// Why a jump was refused.
    public enum JumpError: Error, Equatable, CustomStringConvertible {
        /// No entry has that number (it was never recorded, or was discarded with a redo branch).
        case noSuchEntry(Int, available: ClosedRange<Int>)
        /// The entry was dropped as one of the oldest, to stay within the limits.
        case dropped(Int, available: ClosedRange<Int>, limits: Limits)

        /// Names the entry, why it is missing, and the numbers available.
        public var description: String {
            switch self {
            case .noSuchEntry(let index, let available):
                "no entry \(index) in the timeline (entries \(available.lowerBound)…\(available.upperBound) are available)"
            case .dropped(let index, let available, let limits):
                "entry \(index) is no longer kept: the timeline keeps at most \(limits.entries) entries and "
                    + "\(limits.bytes >> 20) MiB, and drops the oldest (entries \(available.lowerBound)…\(available.upperBound) are available)"
            }
        }
    }

    @usableFromInline let store: RootStore<State, Action>
    @usableFromInline let recorder: Recorder<State, Action>
    /// Guards `subscription`, the only mutable part (hence `@unchecked Sendable`).
    @usableFromInline let subscriptionLock = Lock()
    @exclusivity(unchecked) @usableFromInline var subscription: StoreSubscription?

    /// The limits this timeline keeps to.
    public var limits: Limits { recorder.limits }

    /// Starts recording `store`, keeping history within `limits` as `footprint` measures it.
    @inlinable
    public init(recording store: RootStore<State, Action>, limits: Limits = Limits(), footprint: Footprint = .inline) {
        self.store = store
        // Inlinable, so that recording each action runs code specialised for the app's types.
        let recorder = Recorder(initial: store.currentState, limits: limits, footprint: footprint, replay: store.replayer)
        self.recorder = recorder
        subscription = store.observeActions(wantsState: { recorder.wantsState }) { action, state in recorder.record(action, state) }
    }

    /// Starts recording `store`, keeping at most `capacity` entries (at least 2) and the
    /// default byte budget.
    public convenience init(recording store: RootStore<State, Action>, capacity: Int) {
        self.init(recording: store, limits: Limits(entries: capacity))
    }

    /// Stops recording; what was recorded stays available.
    public func stopRecording() {
        let stopped = subscriptionLock.withLock { () -> StoreSubscription? in
            defer { subscription = nil }
            return subscription
        }
        stopped?.cancel()
    }

    // MARK: - Reading

    /// Every kept entry, oldest first.
    public var entries: [Entry] { recorder.entries }

    /// The entry the store currently shows.
    public var current: Entry { recorder.current }

    /// The estimated bytes the kept actions and checkpoints take.
    public var estimatedBytes: Int { recorder.estimatedBytes }

    /// The state after entry `index`, recomputed from the checkpoint before it.
    public func state(at index: Int) throws(JumpError) -> State {
        try recorder.state(at: index)
    }

    /// Whether there is an earlier entry to go back to.
    public var canUndo: Bool { recorder.canUndo }

    /// Whether there is a later entry to go forward to.
    public var canRedo: Bool { recorder.canRedo }

    // MARK: - Moving

    /// Restores the previous entry's state.
    @discardableResult
    public func undo() -> Bool {
        restore(recorder.move { $0.cursor > $0.hidden ? $0.cursor - 1 : nil })
    }

    /// Restores the next entry's state, after an undo.
    @discardableResult
    public func redo() -> Bool {
        restore(recorder.move { $0.cursor < $0.entries.count - 1 ? $0.cursor + 1 : nil })
    }

    /// Restores the state of the entry numbered `index`.
    public func jump(to index: Int) throws(JumpError) {
        restore(try recorder.moveThrowing(to: index))
    }

    @discardableResult
    private func restore(_ state: State?) -> Bool {
        guard let state else { return false }
        store.restore(state)
        return true
    }
}

/// What a ``Timeline`` records, and the rules for keeping it within its limits.
@usableFromInline
final class Recorder<State: Sendable, Action: Sendable>: @unchecked Sendable {
    @usableFromInline typealias Entry = Timeline<State, Action>.Entry
    @usableFromInline typealias Limits = Timeline<State, Action>.Limits
    @usableFromInline typealias JumpError = Timeline<State, Action>.JumpError

    @usableFromInline
    struct Recorded {
        @usableFromInline let index: Int
        @usableFromInline let action: Action?
        @usableFromInline let bytes: Int

        @inlinable
        init(index: Int, action: Action?, bytes: Int) {
            self.index = index
            self.action = action
            self.bytes = bytes
        }
    }

    @usableFromInline
    struct Checkpoint {
        @usableFromInline let index: Int
        @usableFromInline let state: State
        @usableFromInline let bytes: Int

        @inlinable
        init(index: Int, state: State, bytes: Int) {
            self.index = index
            self.state = state
            self.bytes = bytes
        }
    }

    /// Entries in order, each with its action; the first always has a checkpoint.
    @usableFromInline
    struct History {
        @usableFromInline var entries = Queue<Recorded>()
        /// Sorted by index; the first is at the first of `entries`.
        @usableFromInline var checkpoints = Queue<Checkpoint>()
        @usableFromInline var hidden = 0
        @usableFromInline var nextIndex = 1
        /// Position in `entries` of the entry the store shows.
        @usableFromInline var cursor = 0
        /// The estimated bytes of every action and checkpoint held, hidden ones included.
        @usableFromInline var bytes = 0
        @usableFromInline var sinceCheckpoint = 0
        @usableFromInline var bytesSinceCheckpoint = 0
        /// Entries between checkpoints, adapted to the size of the state.
        @usableFromInline var interval: Int

        @inlinable
        init(interval: Int) {
            self.interval = interval
        }

        @inlinable
        var visibleCount: Int { entries.count - hidden }
    }

    /// The shortest and longest distance between checkpoints, which bound a jump's replay.
    @inlinable static var shortestInterval: Int { 32 }
    @inlinable static var longestInterval: Int { 1_024 }

    @usableFromInline let limits: Limits
    @usableFromInline let footprint: Timeline<State, Action>.Footprint
    @usableFromInline let replay: (@Sendable (Action, State) -> State)?
    /// Guards `storage`, the whole history (hence `@unchecked Sendable`).
    @usableFromInline let lock = Lock()
    @exclusivity(unchecked) @usableFromInline var storage: History

    @inlinable
    init(initial: State, limits: Limits, footprint: Timeline<State, Action>.Footprint, replay: (@Sendable (Action, State) -> State)?) {
        self.limits = limits
        self.footprint = footprint
        self.replay = replay
        var history = History(interval: replay == nil ? 1 : Self.shortestInterval)
        history.entries.append(Recorded(index: 0, action: nil, bytes: 0))
        let bytes = footprint.state(initial)
        history.checkpoints.append(Checkpoint(index: 0, state: initial, bytes: bytes))
        history.bytes = bytes
        storage = history
    }

    @inlinable
    func withHistory<Result, Failure: Error>(_ body: (inout History) throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&storage)
    }

    // MARK: - Recording

    /// Whether the next action should come with its state: a checkpoint is due.
    @usableFromInline let checkpointDue = Atomic<Bool>(true)

    @inlinable
    var wantsState: Bool { checkpointDue.load(ordering: .relaxed) }

    /// Records `action`, and `state` after it when the store handed it over (``wantsState``
    /// asked for it); a checkpoint due at an action without its state waits for the next one.
    @inlinable
    func record(_ action: Action, _ state: State?) {
        let actionBytes = footprint.action(action)
        withHistory { history in
            // A new action after undo replaces the redo branch.
            if history.cursor < history.entries.count - 1 { discardRedoBranch(&history) }
            let index = history.nextIndex
            history.nextIndex += 1
            history.entries.append(Recorded(index: index, action: action, bytes: actionBytes))
            history.bytes += actionBytes
            history.cursor = history.entries.count - 1
            history.sinceCheckpoint += 1
            history.bytesSinceCheckpoint += actionBytes
            if let state, isCheckpointDue(history, afterNext: false) {
                addCheckpoint(index: index, state: state, to: &history)
            }
            checkpointDue.store(isCheckpointDue(history, afterNext: true), ordering: .relaxed)
            while history.visibleCount > 1, history.visibleCount > limits.entries || history.bytes > limits.bytes {
                // Over the byte budget, hiding entries frees nothing until a checkpoint follows.
                if history.visibleCount <= limits.entries, history.checkpoints.count < 2 { break }
                hideOldest(&history)
            }
        }
    }

    /// Whether a checkpoint is due now, or will be after one more action (`afterNext`).
    @inlinable
    func isCheckpointDue(_ history: borrowing History, afterNext: Bool) -> Bool {
        history.sinceCheckpoint + (afterNext ? 1 : 0) >= history.interval || history.bytesSinceCheckpoint > limits.bytes / 8
    }

    @inlinable
    func discardRedoBranch(_ history: inout History) {
        while history.entries.count - 1 > history.cursor { history.bytes -= history.entries.removeLast().bytes }
        let current = history.entries[history.cursor].index
        while let last = history.checkpoints.last, last.index > current {
            history.bytes -= history.checkpoints.removeLast().bytes
        }
        let checkpoint = checkpoint(atOrBefore: current, in: history).position
        history.sinceCheckpoint = history.cursor - checkpoint
        history.bytesSinceCheckpoint = (checkpoint + 1..<history.entries.count).reduce(0) { $0 + history.entries[$1].bytes }
    }

    @inlinable
    func addCheckpoint(index: Int, state: State, to history: inout History) {
        let bytes = footprint.state(state)
        history.checkpoints.append(Checkpoint(index: index, state: state, bytes: bytes))
        history.bytes += bytes
        history.sinceCheckpoint = 0
        history.bytesSinceCheckpoint = 0
        if replay != nil {
            // Space checkpoints so that a full history of them takes at most half the budget.
            let needed = limits.entries * Swift.max(1, bytes) / Swift.max(1, limits.bytes / 2) + 1
            history.interval = Swift.min(Self.longestInterval, Swift.max(Self.shortestInterval, needed))
        }
    }

    /// Drops the oldest visible entry; what precedes the oldest visible checkpoint goes.
    @inlinable
    func hideOldest(_ history: inout History) {
        history.hidden += 1
        guard history.checkpoints.count > 1, history.checkpoints[1].index <= history.entries[history.hidden].index else { return }
        history.bytes -= history.checkpoints.removeFirst().bytes
        let first = history.checkpoints[0].index
        while history.entries[0].index < first {
            history.bytes -= history.entries.removeFirst().bytes
            history.hidden -= 1
            history.cursor -= 1
        }
    }

    // MARK: - Reading

    var entries: [Entry] {
        withHistory { history in
            (history.hidden..<history.entries.count).map { Entry(index: history.entries[$0].index, action: history.entries[$0].action) }
        }
    }

    var current: Entry {
        withHistory { history in
            let recorded = history.entries[history.cursor]
            return Entry(index: recorded.index, action: recorded.action)
        }
    }

    var estimatedBytes: Int {
        withHistory { $0.bytes }
    }

    func state(at index: Int) throws(JumpError) -> State {
        try withHistory { history throws(JumpError) in
            try state(atPosition: position(of: index, in: history), in: history)
        }
    }

    var canUndo: Bool {
        withHistory { $0.cursor > $0.hidden }
    }

    var canRedo: Bool {
        withHistory { $0.cursor < $0.entries.count - 1 }
    }

    // MARK: - Moving

    /// Moves the cursor to where `target` picks and returns the state there; `nil` for none.
    func move(_ target: (History) -> Int?) -> State? {
        withHistory { history in
            guard let position = target(history) else { return nil }
            history.cursor = position
            return state(atPosition: position, in: history)
        }
    }

    func moveThrowing(to index: Int) throws(JumpError) -> State {
        try withHistory { history throws(JumpError) in
            let position = try position(of: index, in: history)
            history.cursor = position
            return state(atPosition: position, in: history)
        }
    }

    // MARK: - Finding entries

    @inlinable
    func position(of index: Int, in history: History) throws(JumpError) -> Int {
        let first = history.entries[history.hidden].index
        let available = first...history.entries[history.entries.count - 1].index
        if index < first, index >= 0 { throw .dropped(index, available: available, limits: limits) }
        guard let position = history.entries.position(where: { $0.index }, of: index) else {
            throw .noSuchEntry(index, available: available)
        }
        return position
    }

    /// The last checkpoint at or before entry `index`, and the position of its entry.
    @inlinable
    func checkpoint(atOrBefore index: Int, in history: History) -> (checkpoint: Checkpoint, position: Int) {
        let checkpoint = history.checkpoints[history.checkpoints.lastPosition(where: { $0.index }, atMost: index) ?? 0]
        return (checkpoint, history.entries.position(where: { $0.index }, of: checkpoint.index) ?? 0)
    }

    /// The state after the entry at `position`: its checkpoint's, with the actions since reduced.
    @inlinable
    func state(atPosition position: Int, in history: History) -> State {
        let (checkpoint, checkpointPosition) = checkpoint(atOrBefore: history.entries[position].index, in: history)
        var state = checkpoint.state
        guard let replay else { return state }
        var next = checkpointPosition + 1
        while next <= position {
            if let action = history.entries[next].action { state = replay(action, state) }
            next += 1
        }
        return state
    }
}

/// A timeline's entries or checkpoints: appended, dropped from either end, read, in O(1).
@usableFromInline
struct Queue<Element> {
    // A ring: dropping the oldest frees it at once, and a full history appends without moving
    // or reallocating anything.
    @usableFromInline var ring = RingBuffer<Element>()

    @inlinable
    init() {}

    @inlinable
    var count: Int { ring.count }
    @inlinable
    var first: Element? { ring.isEmpty ? nil : ring[0] }
    @inlinable
    var last: Element? { ring.isEmpty ? nil : ring[ring.count - 1] }

    @inlinable
    subscript(position: Int) -> Element { ring[position] }

    @inlinable
    mutating func append(_ element: Element) { ring.append(element) }

    @inlinable
    mutating func removeLast() -> Element {
        guard let element = ring.popLast() else { preconditionFailure("Queue: removeLast on an empty queue") }
        return element
    }

    @inlinable
    mutating func removeFirst() -> Element {
        guard let element = ring.popFirst() else { preconditionFailure("Queue: removeFirst on an empty queue") }
        return element
    }

    @inlinable
    func position(where key: (Element) -> Int, of target: Int) -> Int? {
        guard let position = lastPosition(where: key, atMost: target), key(self[position]) == target else { return nil }
        return position
    }

    @inlinable
    func lastPosition(where key: (Element) -> Int, atMost target: Int) -> Int? {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if key(self[middle]) <= target { low = middle + 1 } else { high = middle }
        }
        return low > 0 ? low - 1 : nil
    }
}
