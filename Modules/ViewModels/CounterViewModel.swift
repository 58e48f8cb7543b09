import Observation
import Reducers
import StateStore

/// The counter screen.
public final class CounterViewModel: FeatureViewModel {
    /// The counter in the app's store, and its screen.
    public static let feature = FeatureScreen<Counter.State, Counter.Action, Snapshot>(
        scope: { $0.scope(state: \.counter, action: AppFeature.Action.counter) },
        snapshot: { $0.counterSnapshot })

    /// Everything the counter screen shows.
    public struct Snapshot: Hashable, Sendable, Codable {
        /// The count.
        public var count: Int
        /// Whether the decrement button works (a count never goes below zero).
        public var canDecrement: Bool

        /// The snapshot of a counter state.
        public init(_ state: Counter.State) {
            count = state.count
            canDecrement = state.count > 0
        }
    }

    /// The store the view model reads, scoped to its snapshot.
    public let store: Store<Snapshot, Counter.Action>

    /// The view model reading `snapshots`, a store scoped to the screen's snapshot.
    public init(snapshots: Store<Snapshot, Counter.Action>) { store = snapshots }

    /// Add one.
    @discardableResult
    public func increment() -> StoreTask { store.send(.incrementTapped) }
    /// Take one away.
    @discardableResult
    public func decrement() -> StoreTask { store.send(.decrementTapped) }
    /// Back to zero.
    @discardableResult
    public func reset() -> StoreTask { store.send(.resetTapped) }
}

extension Counter.State {
    /// What the counter screen shows for this state.
    public var counterSnapshot: CounterViewModel.Snapshot { CounterViewModel.Snapshot(self) }
}

extension CounterViewModel: HostedViewModel {}
