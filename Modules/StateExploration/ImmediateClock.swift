import StateStore

/// A clock that never waits: sleeping returns at once and moves the clock's time on by the
/// sleep. For explorations and tests whose effects debounce or delay: the waiting is part of
/// what the code means, not of what it does.
public final class ImmediateClock: Clock, Sendable {
    /// A point on the clock: the time slept so far (the same instants as `ManualClock`'s).
    public typealias Instant = ManualClock.Instant

    private let current = Locked(Instant())

    /// A clock at its start.
    public init() {}

    /// The time slept so far.
    public var now: Instant { current.withLock { $0 } }

    /// Any duration: the clock never waits.
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
