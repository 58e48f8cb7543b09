/// A reference that counts its release on a probe of its test's own, to see that a collection
/// lets go of everything it held.
final class Tracked: Sendable {
    let value: Int
    let released: Counter.Probe

    init(_ value: Int, released: Counter.Probe) {
        self.value = value
        self.released = released
    }

    deinit { released.increment() }
}
