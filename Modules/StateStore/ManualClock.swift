/// A clock whose time moves only when told to.
public final class ManualClock: Clock, Sendable {
    /// A point in the test clock's time: an offset from its start.
    public struct Instant: InstantProtocol, Sendable, CustomStringConvertible {
        /// Time since the clock's start.
        public var offset: Duration

        /// The instant `offset` after the clock's start.
        public init(offset: Duration = .zero) {
            self.offset = offset
        }

        /// The instant `duration` later.
        public func advanced(by duration: Duration) -> Instant {
            Instant(offset: offset + duration)
        }

        /// The time from this instant to `other`.
        public func duration(to other: Instant) -> Duration {
            other.offset - offset
        }

        /// Whether `lhs` comes before `rhs`.
        public static func < (lhs: Instant, rhs: Instant) -> Bool {
            lhs.offset < rhs.offset
        }

        /// `"+1.5 seconds"`.
        public var description: String { "+\(offset)" }
    }

    private struct Sleeper {
        let id: UInt64
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Instant
        var sleepers: [Sleeper] = []
        var nextID: UInt64 = 0
    }

    private let state: Locked<State>
    /// Signalled each time a task starts sleeping, for hosts that move the clock when all sleep.
    package let sleeps = ChangeSignal()

    /// A clock that starts at `now`.
    public init(now: Instant = Instant()) {
        state = Locked(State(now: now))
    }

    /// The current instant; it changes only through ``advance(by:)``, ``advance(to:)`` and `run()`.
    public var now: Instant {
        state.withLock { $0.now }
    }

    /// Zero: the clock has no granularity of its own.
    public var minimumResolution: Duration { .zero }

    /// How many sleeps are waiting for time to move.
    public var sleeperCount: Int {
        state.withLock { $0.sleepers.count }
    }

    /// Suspends until the clock is advanced to `deadline`.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Outcome { case waiting, due, cancelled }
                let outcome = state.withLock { state -> Outcome in
                    if Task.isCancelled { return .cancelled }
                    if deadline <= state.now { return .due }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return .waiting
                }
                switch outcome {
                case .waiting: sleeps.signal()
                case .due: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward by `duration`, waking each sleep whose deadline is reached, in order of
    /// deadline, and giving woken tasks a chance to run (and to sleep again) before moving on.
    public func advance(by duration: Duration = .zero) async {
        await advance(to: now.advanced(by: duration))
    }

    /// Moves time forward to `deadline` (never backwards), waking sleeps in order of deadline.
    public func advance(to deadline: Instant) async {
        // Effects just started on other threads first reach their sleeps, as a test expects of
        // work it started before moving the clock.
        await Self.letOthersRun()
        while true {
            let woken = state.withLock { state -> [Sleeper] in
                guard let earliest = state.sleepers.map(\.deadline).min(), earliest <= deadline else {
                    state.now = max(state.now, deadline)
                    return []
                }
                state.now = max(state.now, earliest)
                let due = state.sleepers.filter { $0.deadline <= earliest }
                state.sleepers.removeAll { $0.deadline <= earliest }
                return due
            }
            if woken.isEmpty { break }
            // A store's effects woken here run here, to their next suspension, before time moves
            // on (other tasks get the yields below).
            runningWokenEffectsHere {
                for sleeper in woken { sleeper.continuation.resume() }
            }
            await Self.letOthersRun()
        }
        await Self.letOthersRun()
    }

    /// Advances time until no sleep is waiting (at most `maximum` further), for code that
    /// sleeps a number of times the test does not care about.
    public func run(maximum: Duration = .seconds(3600)) async {
        let limit = now.advanced(by: maximum)
        while let next = state.withLock({ $0.sleepers.map(\.deadline).min() }), next <= limit {
            await advance(to: next)
        }
    }

    /// Yields repeatedly so tasks resumed on other threads can reach their next suspension.
    private static func letOthersRun() async {
        for _ in 0..<25 { await Task.yield() }
    }
}
