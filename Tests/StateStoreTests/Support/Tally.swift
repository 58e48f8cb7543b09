import StateStore

/// An `Equatable` count that each action adds its number to: sending 0 changes nothing.
struct Tally: Equatable, Sendable {
    var count = 0

    /// A store of a tally from 0.
    static func store() -> RootStore<Tally, Int> {
        RootStore(
            initialState: Tally(),
            reducer: Reduce<Tally, Int> { state, delta in
                state.count += delta
                return .none
            })
    }
}
