import StateStore

/// A clock that never waits.
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

    /// Returns at once (after a `Task.yield()`), the clock moved on to `deadline`.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        current.withLock { if $0 < deadline { $0 = deadline } }
        await Task.yield()
        try Task.checkCancellation()
    }
}
