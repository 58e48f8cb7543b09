import Observation
import StateStore
import TestSupport
import Testing

/// A list of counters with a title, to scope stores into.
private struct Board: Reducer {
    struct Row: Identifiable, Equatable, Sendable {
        let id: Int
        var count = 0
    }

    struct State: Equatable, Sendable {
        var title = ""
        var rows: IdentifiedArray<Row> = []
        /// The rows through a computed property: not at a place in the state's bytes.
        var shownRows: IdentifiedArray<Row> { rows }
    }

    enum Action: Equatable, Sendable {
        case retitle(String)
        case row(id: Int, RowAction)
        case incrementAll
        case remove(Int)
        case sortDescending
        case replaceRows([Row])
    }

    enum RowAction: Equatable, Sendable { case increment }

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .retitle(let title):
            state.title = title
        case .row(let id, .increment):
            state.rows[id: id]?.count += 1
        case .incrementAll:
            for row in state.rows { state.rows[id: row.id]?.count += 1 }
        case .remove(let id):
            state.rows.remove(id: id)
        case .sortDescending:
            state.rows.sort { $0.id > $1.id }
        case .replaceRows(let rows):
            state.rows = IdentifiedArray(uniqueElements: rows)
        }
        return .none
    }

    static func store(rows: Int) -> RootStore<State, Action> {
        RootStore(initialState: State(rows: IdentifiedArray(uniqueElements: (0..<rows).map { Row(id: $0) })), reducer: Board())
    }
}

@Suite("Scoped stores")
struct ScopedStoreTests {
    @Test func aScopedStoreIsNotifiedOnlyWhenItsPartChanges() {
        let store = Board.store(rows: 2)
        let title = store.scope(state: \.title, action: Board.Action.retitle)
        let seen = Collected<String>()
        let subscription = title.observe { seen.append($0) }
        store.send(.row(id: 0, .increment))
        store.send(.retitle("Groceries"))
        store.send(.row(id: 1, .increment))
        store.send(.retitle("Groceries"))
        #expect(seen.all == ["", "Groceries"])
        #expect(title.currentState == "Groceries")
        subscription.cancel()
    }

    @Test func aDerivedStoreIsNotifiedOnlyWhenTheDerivedValueChanges() {
        let store = Board.store(rows: 3)
        let total = store.scope(deriving: { $0.rows.reduce(0) { $0 + $1.count } }, action: { $0 })
        let seen = Collected<Int>()
        let subscription = total.observe { seen.append($0) }
        store.send(.retitle("Scores"))
        store.send(.row(id: 1, .increment))
        store.send(.sortDescending)
        store.send(.incrementAll)
        store.send(.remove(2))
        #expect(seen.all == [0, 1, 4, 3])
        total.send(.retitle("Totals"))
        #expect(store.currentState.title == "Totals")
        subscription.cancel()
    }

    @Test func aScopedStoresRevisionMovesWhenItsValueMayHaveChangedAndOnlyThen() {
        let store = Board.store(rows: 2)
        // Derived from a stored scope and read without observing, as the view models are.
        let title = store.scope(state: \.title, action: Board.Action.retitle)
        let length = title.scope(deriving: { $0.count }, action: { $0 })
        let start = length.currentStateAndRevision
        store.send(.row(id: 0, .increment))
        store.send(.row(id: 1, .increment))
        #expect(length.revision == start.revision, "only other parts changed")
        store.send(.retitle("Groceries"))
        let retitled = length.currentStateAndRevision
        #expect(retitled.revision != start.revision && retitled.state == 9)
        store.send(.retitle("Groceries"))
        #expect(length.revision == retitled.revision, "the title's bytes did not change")

        // Observed, it moves only when the derived value changes.
        let seen = Collected<Int>()
        let subscription = length.observe { seen.append($0) }
        let observed = length.revision
        store.send(.retitle("Chores 123"))
        let longer = length.currentStateAndRevision
        #expect(longer.revision != observed && longer.state == 10)
        store.send(.retitle("Shopping12"))
        #expect(length.revision == longer.revision, "same length, same value")
        #expect(seen.all == [9, 10])
        subscription.cancel()
    }

    @Test func scopesThatLeaveInAnyOrderLeaveTheOthersUpdating() {
        let store = Board.store(rows: 1)
        var scopes = (0..<4).map { offset in store.scope(deriving: { $0.title.count + offset }, action: { $0 }) }
        let seen = (0..<4).map { _ in Collected<Int>() }
        var subscriptions = zip(scopes, seen).map { scope, seen in scope.observe { seen.append($0) } }
        // The first, then the last, leave: the others keep hearing about changes.
        subscriptions[0].cancel()
        subscriptions[3].cancel()
        subscriptions = [subscriptions[1], subscriptions[2]]
        scopes = [scopes[1], scopes[2]]
        store.send(.retitle("abc"))
        #expect(seen[1].all == [1, 4] && seen[2].all == [2, 5])
        #expect(seen[0].all == [0] && seen[3].all == [3], "cancelled observers hear nothing more")
        #expect(scopes.map(\.currentState) == [4, 5])
        subscriptions.forEach { $0.cancel() }
    }

    @Test func aScopedStoreSendsThroughItsParent() {
        let store = Board.store(rows: 0)
        let title = store.scope(state: \.title, action: Board.Action.retitle)
        title.send("Chores")
        #expect(store.currentState.title == "Chores")
    }

    @Test func anElementStoreHearsOnlyAboutItsElement() {
        let store = Board.store(rows: 100)
        let seen = (0..<100).map { _ in Collected<Int>() }
        let rows = (0..<100).compactMap { id in
            store.scope(\.rows, id: id, action: { (id: Int, action: Board.RowAction) in Board.Action.row(id: id, action) })
        }
        let subscriptions = rows.enumerated().map { index, row in row.observe { seen[index].append($0.count) } }
        store.send(.row(id: 42, .increment))
        store.send(.row(id: 42, .increment))
        store.send(.retitle("x"))
        store.send(.row(id: 7, .increment))
        #expect(seen[42].all == [0, 1, 2])
        #expect(seen[7].all == [0, 1])
        #expect(seen.enumerated().allSatisfy { index, values in [7, 42].contains(index) || values.all == [0] })
        rows[3].send(.increment)
        #expect(store.currentState.rows[id: 3]?.count == 1)
        #expect(seen[3].all == [0, 1])
        _ = subscriptions
    }

    @Test func elementStoresStayCorrectWhenMoreChangesHappenThanTheLogRemembers() {
        let store = Board.store(rows: 50)
        let seen = (0..<50).map { _ in Collected<Int>() }
        let rows = (0..<50).compactMap { id in store.scope(\.rows, id: id, action: Board.Action.row) }
        let subscriptions = rows.enumerated().map { index, row in row.observe { seen[index].append($0.count) } }
        // One action touching all 50 elements: more steps than the change log keeps.
        store.send(.incrementAll)
        #expect(seen.allSatisfy { $0.all == [0, 1] })
        store.send(.sortDescending)
        #expect(seen.allSatisfy { $0.all == [0, 1] }, "reordering changes no element")
        store.send(.replaceRows((0..<50).map { Board.Row(id: $0, count: $0 == 9 ? 5 : 1) }))
        #expect(seen[9].all == [0, 1, 5])
        #expect(seen[8].all == [0, 1], "replacing with equal values notifies nobody")
        _ = subscriptions
    }

    @Test func elementStoresOfAComputedCollectionFollowTheirElementToo() {
        let store = Board.store(rows: 5)
        let seen = Collected<Int>()
        guard let row = store.scope(\.shownRows, id: 2, action: Board.Action.row) else {
            Issue.record("row 2 should exist")
            return
        }
        let subscription = row.observe { seen.append($0.count) }
        store.send(.row(id: 2, .increment))
        store.send(.row(id: 3, .increment))
        store.send(.retitle("other"))
        store.send(.row(id: 2, .increment))
        #expect(seen.all == [0, 1, 2], "only its own element's changes")
        #expect(row.currentState == Board.Row(id: 2, count: 2))
        _ = subscription
    }

    @Test func anElementStoreFollowsItsElementWhenItMovesOrAnotherTakesItsPlace() {
        struct Rows: Equatable, Sendable { var rows: IdentifiedArray<Board.Row> }
        enum Action: Sendable { case bumpAndMoveFirst(Int), replace(Int, with: Int) }
        let store = RootStore(
            initialState: Rows(rows: IdentifiedArray(uniqueElements: (0..<5).map { Board.Row(id: $0) })),
            reducer: Reduce<Rows, Action> { state, action in
                switch action {
                case .bumpAndMoveFirst(let id):
                    // Changed under its place's key, then moved to another key.
                    state.rows[id: id]?.count += 1
                    guard let index = state.rows.index(id: id) else { return .none }
                    state.rows.move(from: index, to: 0)
                case .replace(let id, let newID):
                    // Another element takes the removed one's place.
                    guard let index = state.rows.index(id: id) else { return .none }
                    state.rows.remove(id: id)
                    state.rows.insert(Board.Row(id: newID, count: 9), at: index)
                }
                return .none
            })
        let seen = (0..<5).map { _ in Collected<Int>() }
        let rows = (0..<5).compactMap { id in store.scope(\.rows, id: id, action: { (_: Int, _: Board.RowAction) in Action.bumpAndMoveFirst(0) }) }
        let subscriptions = rows.enumerated().map { index, row in row.observe { seen[index].append($0.count) } }
        store.send(.bumpAndMoveFirst(3))
        store.send(.bumpAndMoveFirst(3))
        #expect(seen[3].all == [0, 1, 2])
        #expect(rows[3].currentState == Board.Row(id: 3, count: 2))
        // Row 1 lies halfway between its neighbours' keys, so row 7 takes the very key it had.
        store.send(.replace(1, with: 7))
        #expect(rows[1].currentState == Board.Row(id: 1, count: 0), "a removed element's store keeps its last value")
        #expect(seen.enumerated().allSatisfy { index, values in index == 3 || values.all == [0] })
        _ = subscriptions
    }

    @Test func anElementStoreKeepsItsLastValueAfterTheElementIsRemoved() {
        let store = Board.store(rows: 3)
        guard let row = store.scope(\.rows, id: 1, action: Board.Action.row) else {
            Issue.record("row 1 should exist")
            return
        }
        store.send(.row(id: 1, .increment))
        store.send(.remove(1))
        #expect(row.currentState == Board.Row(id: 1, count: 1))
        #expect(store.scope(\.rows, id: 1, action: Board.Action.row) == nil, "no store for an absent id")
    }

    @Test func nestedScopesNotifyOnlyWhenTheirOwnPartChanges() {
        struct Outer: Equatable, Sendable { var inner = Inner(); var other = 0 }
        struct Inner: Equatable, Sendable { var value = 0; var noise = 0 }
        enum Action: Sendable { case value, noise, other }
        let store = RootStore(
            initialState: Outer(),
            reducer: Reduce<Outer, Action> { state, action in
                switch action {
                case .value: state.inner.value += 1
                case .noise: state.inner.noise += 1
                case .other: state.other += 1
                }
                return .none
            })
        let inner = store.scope(state: \.inner, action: { $0 })
        let value = inner.scope(state: \.value, action: { $0 })
        let seen = Collected<Int>()
        let subscription = value.observe { seen.append($0) }
        store.send(.other)
        store.send(.noise)
        store.send(.value)
        #expect(seen.all == [0, 1])
        value.send(.value)
        #expect(store.currentState.inner.value == 2)
        subscription.cancel()
    }

    @Test func releasingAScopedStoreUnregistersIt() {
        let store = Board.store(rows: 1)
        let seen = Collected<String>()
        do {
            let title = store.scope(state: \.title, action: Board.Action.retitle)
            let subscription = title.observe { seen.append($0) }
            store.send(.retitle("a"))
            subscription.cancel()
        }
        store.send(.retitle("b"))
        #expect(seen.all == ["", "a"])
    }

    @Test func scopingTwiceThroughOnePathGivesTheStoreAlreadyAlive() {
        let store = Board.store(rows: 1)
        let retitle = ActionPath<Board.Action, String>(embed: Board.Action.retitle) {
            if case .retitle(let title) = $0 { title } else { nil }
        }
        var first: Store<String, String>? = store.scope(state: \.title, action: retitle)
        let again = store.scope(state: \.title, action: retitle)
        #expect(first === again)
        let otherPath = ActionPath<Board.Action, String>(embed: Board.Action.retitle) { _ in nil }
        #expect(store.scope(state: \.title, action: otherPath) !== again)
        #expect(store.scope(state: \.title, action: { Board.Action.retitle($0) }) !== again)

        first = nil
        let seen = Collected<String>()
        let subscription = again.observe { seen.append($0) }
        again.send("kept")
        #expect(seen.all == ["", "kept"])
        subscription.cancel()
        #expect(first == nil)
    }

    @Test func aCachedChildStoreGoesWithItsLastHolder() {
        let store = Board.store(rows: 1)
        let retitle = ActionPath<Board.Action, String>(embed: Board.Action.retitle) {
            if case .retitle(let title) = $0 { title } else { nil }
        }
        weak var released: Store<String, String>?
        do {
            let child = store.scope(state: \.title, action: retitle)
            released = child
            #expect(released != nil)
        }
        #expect(released == nil, "the cache holds child stores weakly")
        let fresh = store.scope(state: \.title, action: retitle)
        store.send(.retitle("new"))
        #expect(fresh.currentState == "new")
    }

    @Test func observationTrackingOnAScopedStoreFiresOnlyForItsPart() {
        let store = Board.store(rows: 1)
        let title = store.scope(state: \.title, action: Board.Action.retitle)
        let fired = Counter.Probe()
        _ = withObservationTracking {
            title.state
        } onChange: {
            fired.increment()
        }
        store.send(.row(id: 0, .increment))
        #expect(fired.count == 0)
        store.send(.retitle("new"))
        #expect(fired.count == 1)
    }

    @Test func deduplicatingTheRootByScopingToSelf() {
        let store = Board.store(rows: 0)
        let whole = store.scope(state: \.self, action: { $0 })
        let seen = Collected<String>()
        let subscription = whole.observe { seen.append($0.title) }
        store.send(.retitle("a"))
        store.send(.retitle("a"))
        #expect(seen.all == ["", "a"])
        subscription.cancel()
    }

    // Scopes of stored properties skip the actions that leave their bytes alone; these check
    // that nothing is missed where copies do not keep every byte (optionals, enums) or where
    // equal values have different bytes.

    /// Parts whose unused bytes copies need not keep: an optional, an enum with payloads.
    private struct Profile: Equatable, Sendable {
        enum Phase: Equatable, Sendable { case idle, loading(String), failed(code: Int, reason: String) }
        var nickname: String?
        var phase = Phase.idle
        var visits = 0
    }

    private enum ProfileAction: Sendable {
        case nickname(String?), phase(Profile.Phase), visit, setVisits(Int)
    }

    private static func profileStore() -> RootStore<Profile, ProfileAction> {
        RootStore(
            initialState: Profile(),
            reducer: Reduce<Profile, ProfileAction> { state, action in
                switch action {
                case .nickname(let name): state.nickname = name
                case .phase(let phase): state.phase = phase
                case .visit: state.visits += 1
                case .setVisits(let visits): state.visits = visits
                }
                return .none
            })
    }

    @Test func storedPartsThatAreOptionalsOrEnumsAreSeenChangingAndOnlyThen() {
        let store = Self.profileStore()
        let nickname = store.scope(state: \.nickname, action: { $0 })
        let phase = store.scope(state: \.phase, action: { $0 })
        let names = Collected<String?>()
        let phases = Collected<Profile.Phase>()
        let subscriptions = [nickname.observe { names.append($0) }, phase.observe { phases.append($0) }]
        store.send(.visit)
        store.send(.nickname("ann"))
        store.send(.visit)
        store.send(.nickname(nil))
        store.send(.phase(.loading("a")))
        store.send(.visit)
        store.send(.phase(.failed(code: 7, reason: "down")))
        store.send(.phase(.failed(code: 7, reason: "down")))
        // Only the bytes after the first word differ.
        store.send(.phase(.failed(code: 7, reason: "gone")))
        store.send(.phase(.idle))
        store.send(.nickname(nil))
        #expect(names.all == [nil, "ann", nil])
        #expect(phases.all == [.idle, .loading("a"), .failed(code: 7, reason: "down"), .failed(code: 7, reason: "gone"), .idle])
        #expect(nickname.currentState == nil && phase.currentState == .idle)
        subscriptions.forEach { $0.cancel() }
    }

    @Test func anEqualValueWithOtherBytesIsNotAChange() {
        let store = Self.profileStore()
        let nickname = store.scope(state: \.nickname, action: { $0 })
        let names = Collected<String?>()
        let subscription = nickname.observe { names.append($0) }
        let long = String(repeating: "x", count: 40)
        store.send(.nickname(long))
        // The same text in a new allocation: other bytes, an equal value.
        store.send(.nickname(String(repeating: "x", count: 20) + String(repeating: "x", count: 20)))
        #expect(names.all == [nil, long])
        subscription.cancel()
    }

    @Test func aScopeMadeAfterUnobservedActionsStartsFromTheStateThen() {
        let store = Self.profileStore()
        store.send(.visit)
        store.send(.nickname("bo"))
        let visits = store.scope(state: \.visits, action: { $0 })
        let seen = Collected<Int>()
        let subscription = visits.observe { seen.append($0) }
        store.send(.nickname("cy"))
        store.send(.visit)
        #expect(seen.all == [1, 2])
        subscription.cancel()
    }

    @Test func restoringAPastStateNotifiesTheScopesItChanges() {
        let store = Self.profileStore()
        let timeline = Timeline(recording: store, capacity: 10)
        let visits = store.scope(state: \.visits, action: { $0 })
        let seen = Collected<Int>()
        let subscription = visits.observe { seen.append($0) }
        store.send(.visit)
        store.send(.visit)
        store.send(.nickname("di"))
        #expect(timeline.undo())
        #expect(timeline.undo())
        store.send(.visit)
        #expect(seen.all == [0, 1, 2, 1, 2])
        subscription.cancel()
    }

    @Test func aDerivationReadingDeclaredPartsIsSkippedOnlyWhenTheyStayTheSame() {
        let store = Self.profileStore()
        let summary = store.scope(deriving: { "\($0.nickname ?? "?") \($0.visits)" }, reading: \.nickname, \.visits, action: { $0 })
        let seen = Collected<String>()
        let subscription = summary.observe { seen.append($0) }
        store.send(.phase(.loading("x")))
        store.send(.visit)
        store.send(.nickname("em"))
        store.send(.phase(.idle))
        store.send(.setVisits(1))
        #expect(seen.all == ["? 0", "? 1", "em 1"])
        subscription.cancel()
    }

    private struct Shelf: Equatable, Sendable {
        var books: [String] = []
        var visits = 0
    }

    private enum ShelfAction: Sendable { case add(String), copyBooks, visit }

    /// A shelf whose books are appended in place when their buffer is the store's own.
    private static func shelfStore() -> RootStore<Shelf, ShelfAction> {
        var initial = Shelf()
        initial.books.reserveCapacity(16)
        return RootStore(
            initialState: initial,
            reducer: Reduce<Shelf, ShelfAction> { state, action in
                switch action {
                case .add(let title): state.books.append(title)
                case .copyBooks:
                    // Equal books in a new buffer, with room to append in place.
                    var copy = state.books.map { $0 }
                    copy.reserveCapacity(16)
                    state.books = copy
                case .visit: state.visits += 1
                }
                return .none
            })
    }

    @Test func aDerivationReadingAnArraySeesItChangeInPlace() {
        let store = Self.shelfStore()
        let count = store.scope(deriving: { $0.books.count }, reading: \.books, action: { $0 })
        let seen = Collected<Int>()
        let subscription = count.observe { seen.append($0) }
        store.send(.add("Emma"))
        store.send(.add("Persuasion"))
        store.send(.visit)
        store.send(.add("Sanditon"))
        #expect(seen.all == [0, 1, 2, 3])
        subscription.cancel()
    }

    @Test func aStoredPartReplacedByAnEqualValueThenChangedInPlaceIsSeenChanging() {
        let store = Self.shelfStore()
        let books = store.scope(state: \.books, action: { (action: ShelfAction) in action })
        let seen = Collected<[String]>()
        let subscription = books.observe { seen.append($0) }
        store.send(.add("Emma"))
        store.send(.copyBooks) // equal: not heard, and the scope keeps the buffer it had
        store.send(.add("Persuasion"))
        store.send(.add("Sanditon"))
        #expect(seen.all == [[], ["Emma"], ["Emma", "Persuasion"], ["Emma", "Persuasion", "Sanditon"]])
        subscription.cancel()
    }

    /// Holding what a scope reads costs only that part: an array no scope reads is still
    /// appended to in place, where a copy of the whole state kept through each action would
    /// copy the array at every append.
    @Test func aScopeOfOnePropertyLeavesTheOthersToChangeInPlace() {
        let store = Self.shelfStore()
        let visits = store.scope(state: \.visits, action: { (action: ShelfAction) in action })
        let seen = Collected<Int>()
        let subscription = visits.observe { seen.append($0) }
        store.send(.add("Emma"))
        let buffer = store.currentState.books.withUnsafeBufferPointer { $0.baseAddress }
        for title in ["Persuasion", "Sanditon", "Lady Susan"] { store.send(.add(title)) }
        store.send(.visit)
        #expect(store.currentState.books.withUnsafeBufferPointer { $0.baseAddress } == buffer)
        #expect(seen.all == [0, 1])
        subscription.cancel()
    }

    // A scoped store nobody observes derives its value when it is read, not after every action.

    /// A store of `store`'s visits, and every value its derivation produced.
    private static func countedVisits(of store: RootStore<Profile, ProfileAction>) -> (Store<Int, ProfileAction>, Collected<Int>) {
        let derivations = Collected<Int>()
        let visits = store.scope(
            deriving: { state -> Int in
                derivations.append(state.visits); return state.visits
            }, action: { $0 })
        return (visits, derivations)
    }

    @Test func anUnobservedDerivationRunsWhenReadNotOnEveryAction() {
        let store = Self.profileStore()
        let (visits, derivations) = Self.countedVisits(of: store)
        let initialDerivations = derivations.all.count
        for _ in 0..<100 { store.send(.visit) }
        #expect(derivations.all.count == initialDerivations, "derived while nobody looked")
        #expect(visits.currentState == 100)
        #expect(visits.currentState == 100)
        #expect(derivations.all.count == initialDerivations + 1, "derived once for two reads")
    }

    @Test func anObservedDerivationRunsOncePerChange() {
        let store = Self.profileStore()
        let (visits, derivations) = Self.countedVisits(of: store)
        let seen = Collected<Int>()
        let subscription = visits.observe { seen.append($0) }
        let before = derivations.all.count
        for _ in 0..<10 { store.send(.visit) }
        #expect(seen.all == Array(0...10))
        #expect(derivations.all.count == before + 10, "one derivation per change, as TCA's scope evaluates its closure once")
        subscription.cancel()
    }

    @Test func observingAStaleStoreStartsFromItsValueNowAndFollowsFromThere() {
        let store = Self.profileStore()
        let visits = store.scope(deriving: { $0.visits * 10 }, action: { $0 })
        store.send(.visit)
        store.send(.visit)
        let seen = Collected<Int>()
        let subscription = visits.observe { seen.append($0) }
        store.send(.nickname("fay"))
        store.send(.visit)
        subscription.cancel()
        store.send(.visit)
        store.send(.visit)
        #expect(seen.all == [20, 30])
        #expect(visits.currentState == 50)
    }

    @Test func trackingAStaleStoreFiresOnItsNextChange() {
        let store = Self.profileStore()
        let visits = store.scope(deriving: { $0.visits }, action: { $0 })
        store.send(.visit)
        let fired = Counter.Probe()
        let value = withObservationTracking {
            visits.state
        } onChange: {
            fired.increment()
        }
        #expect(value == 1)
        store.send(.nickname("gus"))
        #expect(fired.count == 0)
        store.send(.visit)
        #expect(fired.count == 1)
    }

    @Test func aStoreScopedFromAStaleStoreReadsThroughIt() {
        let store = Self.profileStore()
        let visits = store.scope(deriving: { $0.visits }, action: { $0 })
        store.send(.visit)
        let doubled = visits.scope(deriving: { $0 * 2 }, action: { $0 })
        store.send(.visit)
        #expect(doubled.currentState == 4)
        let seen = Collected<Int>()
        let subscription = doubled.observe { seen.append($0) }
        store.send(.visit)
        #expect(seen.all == [4, 6])
        subscription.cancel()
    }
}

@Suite("Scope call counts, as TCA's")
struct ScopeCallCountTests {
    /// A counter whose every action adds one.
    private static let counting = Reduce<Int, Void> { count, _ in
        count += 1
        return .none
    }

    /// A scope of `store` deriving the count as it is, counting its derivations in `calls`.
    private static func counted(_ store: Store<Int, Void>, _ calls: Locked<Int>) -> Store<Int, Void> {
        store.scope(
            deriving: { (count: Int) -> Int in
                calls.withLock { $0 += 1 }
                return count
            }, action: { $0 })
    }

    @Test func aChainOfDerivedScopesDerivesOnceEachAtCreationAndOncePerAction() {
        let calls = (Locked(0), Locked(0), Locked(0))
        let store1 = RootStore(initialState: 0, reducer: Self.counting)
        let store2 = Self.counted(store1, calls.0)
        let store3 = Self.counted(store2, calls.1)
        let store4 = Self.counted(store3, calls.2)
        let observing = [store1.observe { _ in }, store2.observe { _ in }, store3.observe { _ in }, store4.observe { _ in }]
        func counts() -> [Int] { [calls.0.withLock { $0 }, calls.1.withLock { $0 }, calls.2.withLock { $0 }] }
        #expect(counts() == [1, 1, 1])
        for sent in 1...4 {
            store4.send(())
            #expect(counts() == [sent + 1, sent + 1, sent + 1])
        }
        withExtendedLifetime(observing) {}
    }
}
