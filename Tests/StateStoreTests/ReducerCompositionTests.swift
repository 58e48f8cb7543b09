import StateStore
import StateStoreTesting
import Testing

/// A parent composing the test `Counter` three ways: as a plain child, an optional child and a
/// collection of identified children.
private struct Parent: Reducer {
    struct Row: Identifiable, Equatable, Sendable {
        let id: Int
        var counter = Counter.State()
    }

    struct State: Equatable, Sendable {
        var counter = Counter.State()
        var detail: Counter.State?
        var rows: IdentifiedArray<Row> = []
        var parentLog: [String] = []
    }

    enum Action: Equatable, Sendable {
        case counter(Counter.Action)
        case detail(Counter.Action)
        case row(id: Int, action: Counter.Action)
        case showDetail
        case addRow(Int)

        static let counterPath = ActionPath(embed: Action.counter) {
            if case .counter(let action) = $0 { action } else { nil }
        }
        static let detailPath = ActionPath(embed: Action.detail) {
            if case .detail(let action) = $0 { action } else { nil }
        }
        static let rowPath = ActionPath(embed: Action.row) {
            if case .row(let id, let action) = $0 { (id, action) } else { nil }
        }
    }

    struct RowCounter: Reducer {
        func reduce(into state: inout Row, action: Counter.Action) -> Effect<Counter.Action> {
            Counter().reduce(into: &state.counter, action: action)
        }
    }

    var body: some Reducer<State, Action> {
        CombineReducers {
            Scope(state: \.counter, action: Action.counterPath) {
                Counter()
            }
            Reduce<State, Action> { state, action in
                switch action {
                case .showDetail:
                    state.detail = Counter.State()
                case .addRow(let id):
                    state.rows.append(Row(id: id))
                case .counter, .detail, .row:
                    // Runs after the children: it sees their changes.
                    state.parentLog.append("saw \(state.counter.count)")
                }
                return .none
            }
        }
        .ifLet(\.detail, action: Action.detailPath) { Counter() }
        .forEach(\.rows, action: Action.rowPath) { RowCounter() }
    }

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
        body.reduce(into: &state, action: action)
    }
}

/// A parent whose children are reached through computed properties, which have no place in
/// the state's bytes: scopes then go through the key path.
private struct ComputedParent: Reducer {
    struct State: Equatable, Sendable {
        var stored = Counter.State()
        var storedDetail: Counter.State?
        var counter: Counter.State {
            get { stored }
            set { stored = newValue }
        }
        var detail: Counter.State? {
            get { storedDetail }
            set { storedDetail = newValue }
        }
    }

    typealias Action = Parent.Action

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
        CombineReducers {
            Scope(state: \.counter, action: Action.counterPath) { Counter() }
            Reduce<State, Action> { state, action in
                if case .showDetail = action { state.detail = Counter.State() }
                return .none
            }
        }
        .ifLet(\.detail, action: Action.detailPath) { Counter() }
        .reduce(into: &state, action: action)
    }
}

@Suite("Reducer composition")
struct ReducerCompositionTests {
    @Test func childrenBehindComputedPropertiesAreReducedThroughTheirKeyPaths() async {
        let store = TestStore(initialState: ComputedParent.State(), reducer: ComputedParent())
        await store.send(.counter(.increment)) { $0.stored.count = 1 }
        await store.send(.showDetail) { $0.storedDetail = Counter.State() }
        await store.send(.detail(.increment)) { $0.storedDetail?.count = 1 }
    }

    @Test func scopeRunsTheChildOnItsStateBeforeTheParentSeesIt() async {
        let store = TestStore(initialState: Parent.State(), reducer: Parent())
        await store.send(.counter(.increment)) {
            $0.counter.count = 1
            $0.parentLog = ["saw 1"]
        }
    }

    @Test func scopedEffectsAreEmbeddedInTheParentsActions() async {
        let store = TestStore(initialState: Parent.State(), reducer: Parent())
        await store.send(.counter(.sendLater("x"))) { $0.parentLog = ["saw 0"] }
        await store.receive(.counter(.note("x"))) {
            $0.counter.log = ["x"]
            $0.parentLog = ["saw 0", "saw 0"]
        }
        await store.finish()
    }

    @Test func ifLetRunsTheChildOnlyWhileItsStateExists() async {
        let store = TestStore(initialState: Parent.State(), reducer: Parent())
        await store.send(.detail(.increment)) { $0.parentLog = ["saw 0"] }
        await store.expectDiagnostic(.missingChild, containing: "detail")
        await store.send(.showDetail) { $0.detail = Counter.State() }
        await store.send(.detail(.increment)) {
            $0.detail?.count = 1
            $0.parentLog = ["saw 0", "saw 0"]
        }
    }

    @Test func forEachRunsTheElementReducerByIDAndReportsMissingIDs() async {
        let store = TestStore(initialState: Parent.State(), reducer: Parent())
        await store.send(.addRow(1)) { $0.rows = [Parent.Row(id: 1)] }
        await store.send(.addRow(2)) { $0.rows = [Parent.Row(id: 1), Parent.Row(id: 2)] }
        await store.send(.row(id: 2, action: .increment)) {
            $0.rows[id: 2]?.counter.count = 1
            $0.parentLog = ["saw 0"]
        }
        await store.send(.row(id: 9, action: .increment)) { $0.parentLog = ["saw 0", "saw 0"] }
        await store.expectDiagnostic(.missingChild, containing: "id: 9")
    }

    @Test func forEachEmbedsElementEffectsWithTheElementsID() async {
        let store = TestStore(initialState: Parent.State(rows: [Parent.Row(id: 5)]), reducer: Parent())
        await store.send(.row(id: 5, action: .sendLater("hi"))) { $0.parentLog = ["saw 0"] }
        await store.receive(.row(id: 5, action: .note("hi"))) {
            $0.rows[id: 5]?.counter.log = ["hi"]
            $0.parentLog = ["saw 0", "saw 0"]
        }
        await store.finish()
    }

    // MARK: - Builder branches

    private struct Appending: Reducer {
        let text: String
        func reduce(into state: inout [String], action: Void) -> Effect<Void> {
            state.append(text)
            return .none
        }
    }

    private func run(@ReducerBuilder<[String], Void> _ build: () -> some Reducer<[String], Void>) -> [String] {
        var state: [String] = []
        _ = build().reduce(into: &state, action: ())
        return state
    }

    @Test func builderRunsReducersInOrderAcrossIfElseForAndAvailability() {
        let flag = true
        let noFlag = false
        let result = run {
            Appending(text: "first")
            if flag { Appending(text: "if-taken") }
            if noFlag { Appending(text: "if-skipped") }
            if noFlag { Appending(text: "then") } else { Appending(text: "else") }
            for index in 1...2 { Appending(text: "loop \(index)") }
            if #available(macOS 15, *) { Appending(text: "available") }
        }
        #expect(result == ["first", "if-taken", "else", "loop 1", "loop 2", "available"])
    }

    @Test func anEmptyBuilderChangesNothing() {
        let result = run {}
        #expect(result.isEmpty)
    }

    @Test func reduceErasesAReducersType() {
        let erased = Reduce(Counter())
        var state = Counter.State()
        _ = erased.reduce(into: &state, action: .increment)
        #expect(state.count == 1)
    }
}
