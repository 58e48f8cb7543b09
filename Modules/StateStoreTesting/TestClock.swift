import StateStore

/// The clock tests move by hand: `ManualClock` under the name tests use.
///
/// ```swift
/// let clock = TestClock()
/// await clock.advance(by: .milliseconds(300))
/// ```
public typealias TestClock = ManualClock
