import StateStore

/// The clock tests move by hand: `ManualClock` under the name tests use.
public typealias TestClock = ManualClock
