import StateStore

/// A clock that never waits: sleeping returns at once and moves the clock's time on by the
/// sleep. For explorations and tests whose effects debounce or delay: the waiting is part of
/// what the code means, not of what it does.
public final class ImmediateClock: Clock, Sendable {
    /// A point on an immediate clock: the time slept so far.
    public struct Instant: InstantProtocol, Sendable {
        /// Time since the clock was made.
        public var offset: Duration

        /// The instant `offset` after the clock was made.
        public init(offset: Duration = .zero) {
            self.offset = offset
        }

        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }

        public func duration(to other: Instant) -> Duration { other.offset - offset }

        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let current = Locked(Instant())

    /// A clock at its start.
    public init() {}

    public var now: Instant { current.withLock { $0 } }

    public var minimumResolution: Duration { .zero }

    /// Returns at once (after a `Task.yield()`), the clock moved on to `deadline`; throws if the
    /// task is cancelled.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        current.withLock { if $0 < deadline { $0 = deadline } }
        await Task.yield()
        try Task.checkCancellation()
    }
}
