import StateStore
import StateStoreTesting
import TestSupport
import Testing

/// What users of The Composable Architecture and ReSwift expect of a store, each behaviour
/// written from its description: sends from reducers, cancellation, child lifetimes, late
/// sends, and observation lifetimes.
@Suite("Conformance with the peers' expectations")
struct ConformanceTests {
    // MARK: - A reducer that sends

    /// A reducer that, against the rules, sends to its own store while reducing.
    struct SelfSending: Reducer {
        struct State: Equatable, Sendable { var log: [String] = [] }
        enum Action: Equatable, Sendable { case first, second }
        let store: StoreBox

        func reduce(into state: inout State, action: Action) -> Effect<Action> {
            state.log.append("\(action)")
            if action == .first { store.value?.send(.second) }
            return .none
        }
    }

    /// A value a reducer or an effect can reach, set by the test.
    final class Box<Value: Sendable>: Sendable {
        private let storage = Locked<Value?>(nil)
        var value: Value? {
            get { storage.withLock { $0 } }
            set { storage.withLock { $0 = newValue } }
        }
    }

    typealias StoreBox = Box<RootStore<SelfSending.State, SelfSending.Action>>

    @Test func aSendFromInsideTheReducerIsQueuedAndReportedNeverAHang() async throws {
        let box = StoreBox()
        let diagnostics = DiagnosticLog()
        let store = RootStore(initialState: SelfSending.State(), reducer: SelfSending(store: box), diagnostics: .collecting(into: diagnostics))
        box.value = store
        // On a thread of its own, so that a hang fails the test instead of stopping the run.
        let finished = Task.detached { store.send(.first) }
        let returned = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                _ = await finished.value; return true
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(10)); return false
            }
            defer { group.cancelAll() }
            return await group.next() ?? false
        }
        try #require(returned, "send from inside the reducer hung")
        #expect(store.currentState.log == ["first", "second"], "the action is reduced right after the one that sent it")
        #expect(diagnostics.entries.map(\.kind) == [.reentrantSend])
        #expect(diagnostics.entries.first?.message.contains("second was sent from inside the reducer") == true)
        box.value = nil
    }

    // MARK: - Cancellation

    /// A long effect that can be cancelled from outside, or from inside another effect.
    struct Timer: Reducer {
        struct State: Equatable, Sendable { var ticks = 0; var log: [String] = [] }
        enum Action: Equatable, Sendable { case start, tick, stop, stopFromInside, stopped, cancelSelf, selfResponse }
        struct TimerID: Hashable, Sendable {}
        struct SelfID: Hashable, Sendable {}
        let clock: TestClock

        func reduce(into state: inout State, action: Action) -> Effect<Action> {
            switch action {
            case .start:
                return .run { send in
                    while true {
                        try await clock.sleep(for: .seconds(1))
                        send(.tick)
                    }
                }
                .cancellable(id: TimerID())
            case .tick:
                state.ticks += 1
                return .none
            case .stop:
                return .cancel(id: TimerID())
            case .stopFromInside:
                return .run { send in
                    Task.cancel(id: TimerID())
                    send(.stopped)
                }
            case .stopped:
                state.log.append("stopped")
                return .none
            case .cancelSelf:
                return .run { send in
                    Task.cancel(id: SelfID())
                    send(.selfResponse)
                }
                .cancellable(id: SelfID())
            case .selfResponse:
                state.log.append("self response")
                return .none
            }
        }
    }

    @Test func aCancelledEffectStopsCountingAsRunningAtOnce() async {
        for _ in 0..<100 {
            let clock = TestClock()
            let store = RootStore(initialState: Timer.State(), reducer: Timer(clock: clock))
            store.send(.start)
            #expect(store.hasRunningEffects)
            store.send(.stop)
            #expect(!store.hasRunningEffects, "cancelled, so no longer running, whatever its task is doing")
            #expect(store.runningEffects.isEmpty)
            #expect(await store.waitForEffects(timeout: .seconds(30)))
        }
    }

    @Test func aTestStoreEndsCleanlyAfterAnEffectIsCancelledEveryTime() async {
        for _ in 0..<100 {
            let clock = TestClock()
            let store = TestStore(initialState: Timer.State(), reducer: Timer(clock: clock))
            await store.send(.start)
            await clock.advance(by: .seconds(1))
            await store.receive(.tick) { $0.ticks = 1 }
            await store.send(.stop)
            await store.finish()
        }
    }

    @Test func anEffectCancelsAnotherFromInsideItsBodyWithTaskCancel() async {
        let clock = TestClock()
        let store = RootStore(initialState: Timer.State(), reducer: Timer(clock: clock))
        store.send(.start)
        #expect(await store.send(.stopFromInside).settle(timeout: .seconds(30)))
        #expect(store.currentState.log == ["stopped"])
        #expect(!store.hasRunningEffects, "the timer was cancelled before the effect went on")
        await clock.advance(by: .seconds(5))
        #expect(store.currentState.ticks == 0)
    }

    @Test func anEffectThatCancelsItselfSendsNothingAfterward() async {
        let store = RootStore(initialState: Timer.State(), reducer: Timer(clock: TestClock()))
        #expect(await store.send(.cancelSelf).settle(timeout: .seconds(30)))
        #expect(store.currentState.log.isEmpty, "a send after Task.cancel(id:) of its own id is dropped")
    }

    @Test func taskCancelOutsideAnEffectCancelsNoStoresEffect() async {
        let clock = TestClock()
        let store = RootStore(initialState: Timer.State(), reducer: Timer(clock: clock))
        store.send(.start)
        // Outside every effect there is no store to ask: a running timer of that id goes on.
        Task.cancel(id: Timer.TimerID())
        #expect(store.hasRunningEffects)
        await clock.advance(by: .seconds(1))
        for _ in 0..<3_000 where store.currentState.ticks == 0 { try? await Task.sleep(for: .milliseconds(10)) }
        #expect(store.currentState.ticks >= 1, "the timer still ticks")
        store.send(.stop)
    }

    // MARK: - Late sends

    /// An effect that hands its `Send` out, to be used after the effect finished.
    struct Leaky: Reducer {
        struct State: Equatable, Sendable { var count = 0 }
        enum Action: Equatable, Sendable { case leak, increment }
        let kept: SendBox

        func reduce(into state: inout State, action: Action) -> Effect<Action> {
            switch action {
            case .leak:
                return .run { [kept] send in kept.value = send }
            case .increment:
                state.count += 1
                return .none
            }
        }
    }

    typealias SendBox = Box<Send<Leaky.Action>>

    @Test func aSendUsedAfterItsEffectFinishedIsDroppedAndReported() async throws {
        let kept = SendBox()
        let diagnostics = DiagnosticLog()
        let store = RootStore(initialState: Leaky.State(), reducer: Leaky(kept: kept), diagnostics: .collecting(into: diagnostics))
        #expect(await store.send(.leak).settle(timeout: .seconds(30)))
        let send = try #require(kept.value)
        send(.increment)
        #expect(store.currentState.count == 0)
        #expect(diagnostics.entries.map(\.kind) == [.sendAfterEffectFinished])
        #expect(diagnostics.entries.first?.message.contains("after that effect finished") == true)
    }

    // MARK: - Children's effects

    /// A parent with an optional child and a list of children, each child running a timer.
    struct Screens: Reducer {
        struct Child: Equatable, Sendable, Identifiable { var id: Int; var ticks = 0 }
        struct State: Equatable, Sendable {
            var detail: Child?
            var rows: IdentifiedArray<Child> = []
        }
        enum ChildAction: Equatable, Sendable { case start, tick }
        enum Action: Equatable, Sendable {
            case present(Int), dismiss, detail(ChildAction)
            case add(Int), remove(Int), row(Int, ChildAction)
            static let detailPath = ActionPath<Action, ChildAction>(embed: Action.detail) {
                if case .detail(let action) = $0 { return action }
                return nil
            }
            static let rowPath = ActionPath<Action, (Int, ChildAction)>(embed: { Action.row($0.0, $0.1) }) {
                if case .row(let id, let action) = $0 { return (id, action) }
                return nil
            }
        }
        struct Ticking: Reducer {
            let clock: TestClock
            func reduce(into state: inout Child, action: ChildAction) -> Effect<ChildAction> {
                switch action {
                case .start:
                    return .run { send in
                        while true {
                            try await clock.sleep(for: .seconds(1))
                            send(.tick)
                        }
                    }
                case .tick:
                    state.ticks += 1
                    return .none
                }
            }
        }
        let clock: TestClock

        var body: some Reducer<State, Action> {
            Reduce<State, Action> { state, action in
                switch action {
                case .present(let id): state.detail = Child(id: id)
                case .dismiss: state.detail = nil
                case .add(let id): state.rows.append(Child(id: id))
                case .remove(let id): state.rows.remove(id: id)
                case .detail, .row: break
                }
                return .none
            }
            .ifLet(\.detail, action: Action.detailPath) { Ticking(clock: clock) }
            .forEach(\.rows, action: Action.rowPath) { Ticking(clock: clock) }
        }

        func reduce(into state: inout State, action: Action) -> Effect<Action> {
            body.reduce(into: &state, action: action)
        }
    }

    @Test func dismissingAnOptionalChildCancelsItsEffects() async {
        let clock = TestClock()
        let diagnostics = DiagnosticLog()
        let store = RootStore(initialState: Screens.State(), reducer: Screens(clock: clock), diagnostics: .collecting(into: diagnostics))
        store.send(.present(1))
        store.send(.detail(.start))
        #expect(store.hasRunningEffects)
        store.send(.dismiss)
        #expect(!store.hasRunningEffects, "the child's timer went with the child")
        await clock.advance(by: .seconds(3))
        #expect(diagnostics.entries.isEmpty, "no tick reached a missing child")
    }

    @Test func removingAnElementCancelsItsEffectsAndOnlyItsOwn() async {
        let clock = TestClock()
        let diagnostics = DiagnosticLog()
        let store = RootStore(initialState: Screens.State(), reducer: Screens(clock: clock), diagnostics: .collecting(into: diagnostics))
        for id in 1...3 {
            store.send(.add(id))
            store.send(.row(id, .start))
        }
        store.send(.remove(2))
        #expect(store.runningEffects == [.row(1, .start), .row(3, .start)])
        await clock.advance(by: .seconds(1))
        #expect(await store.waitForEffects(timeout: .milliseconds(50)) == false, "the other timers run on")
        #expect(store.currentState.rows.map(\.ticks) == [1, 1])
        #expect(diagnostics.entries.isEmpty)
        store.shutDown()
    }

    /// A screen that is a timer or a form, one at a time: an enum state with a case scope.
    struct Switching: Reducer {
        enum State: Equatable, Sendable { case timer(Screens.Child), form(String) }
        enum Action: Equatable, Sendable { case timer(Screens.ChildAction), showForm, showTimer }
        static let timerCase = CasePath<State, Screens.Child>(embed: State.timer) {
            if case .timer(let child) = $0 { child } else { nil }
        }
        static let timerPath = ActionPath<Action, Screens.ChildAction>(embed: Action.timer) {
            if case .timer(let action) = $0 { action } else { nil }
        }
        let clock: TestClock
        var reportsOtherCases = true

        func reduce(into state: inout State, action: Action) -> Effect<Action> {
            Reduce<State, Action> { state, action in
                switch action {
                case .showForm: state = .form("")
                case .showTimer: state = .timer(Screens.Child(id: 1))
                case .timer: break
                }
                return .none
            }
            .ifCaseLet(Self.timerCase, action: Self.timerPath, reportsOtherCases: reportsOtherCases) { Screens.Ticking(clock: clock) }
            .reduce(into: &state, action: action)
        }
    }

    @Test func aCaseScopeRunsItsChildOnlyInItsCaseAndCancelsItsEffectsWhenTheStateLeavesIt() async {
        let clock = TestClock()
        let diagnostics = DiagnosticLog()
        let store = RootStore(
            initialState: Switching.State.timer(Screens.Child(id: 1)), reducer: Switching(clock: clock),
            diagnostics: .collecting(into: diagnostics))
        store.send(.timer(.start))
        await clock.advance(by: .seconds(1))
        #expect(store.currentState == .timer(Screens.Child(id: 1, ticks: 1)), "the child ran on its case")
        store.send(.showForm)
        #expect(!store.hasRunningEffects, "the timer went with its case")
        await clock.advance(by: .seconds(3))
        #expect(store.currentState == .form(""))
        #expect(diagnostics.entries.isEmpty, "no tick reached another case")
        store.send(.timer(.tick))
        #expect(store.currentState == .form(""), "a child action in another case changes nothing")
        #expect(diagnostics.entries.map(\.kind) == [.missingChild])

        let quiet = DiagnosticLog()
        let silent = RootStore(
            initialState: Switching.State.form(""), reducer: Switching(clock: clock, reportsOtherCases: false),
            diagnostics: .collecting(into: quiet))
        silent.send(.timer(.tick))
        #expect(quiet.entries.isEmpty && silent.currentState == .form(""), "cases sharing their actions stay silent")
    }

    /// A screen whose page (an enum) a parent moves between its cases, and whose other state
    /// (a visit count) stays beside it: a case scope of an enum inside the state.
    struct Paged: Reducer {
        struct State: Equatable, Sendable {
            enum Page: Equatable, Sendable { case timer(Screens.Child), form(String) }
            var page: Page
            var visits = 0
        }
        static let timerCase = CasePath<State.Page, Screens.Child>(embed: State.Page.timer) {
            if case .timer(let child) = $0 { child } else { nil }
        }
        let clock: TestClock

        func reduce(into state: inout State, action: Switching.Action) -> Effect<Switching.Action> {
            Reduce<State, Switching.Action> { state, action in
                switch action {
                case .showForm: state.page = .form("")
                case .showTimer: state.page = .timer(Screens.Child(id: 1))
                case .timer: state.visits += 1
                }
                return .none
            }
            .ifCaseLet(\.page, case: Self.timerCase, action: Switching.timerPath, absentReason: "show the timer first") { Screens.Ticking(clock: clock) }
            .reduce(into: &state, action: action)
        }
    }

    @Test func aCaseScopeOfAnEnumInTheStateEndsItsEffectsWhenTheParentMovesTheEnum() async {
        let clock = TestClock()
        let diagnostics = DiagnosticLog()
        let store = RootStore(
            initialState: Paged.State(page: .timer(Screens.Child(id: 1))), reducer: Paged(clock: clock),
            diagnostics: .collecting(into: diagnostics))
        store.send(.timer(.start))
        await clock.advance(by: .seconds(1))
        #expect(store.currentState == Paged.State(page: .timer(Screens.Child(id: 1, ticks: 1)), visits: 2), "the child ran on its case, then the parent")
        store.send(.showForm)
        #expect(!store.hasRunningEffects, "the timer went with its case, which the parent left")
        store.send(.timer(.tick))
        #expect(store.currentState == Paged.State(page: .form(""), visits: 3), "a child action in another case changes only what the parent does")
        #expect(diagnostics.entries.map(\.kind) == [.missingChild])
        #expect(diagnostics.entries.first?.reason == "show the timer first")
        store.send(.showTimer)
        store.send(.timer(.start))
        await clock.advance(by: .seconds(1))
        #expect(store.currentState.page == .timer(Screens.Child(id: 1, ticks: 1)), "a new case runs its child again")
        store.shutDown()
    }

    /// ReSwift: a subscriber is held weakly; it hears the state while it lives, needs no
    /// subscription kept, and goes away when nothing else holds it.
    @Test func aSubscriberIsHeldWeaklyAndHearsWhileItLives() {
        final class Screen: StoreSubscriber, @unchecked Sendable {
            let heard = Locked<[Int]>([])
            func newState(_ state: Int) { heard.withLock { $0.append(state) } }
        }
        let store = RootStore(
            initialState: 0,
            reducer: Reduce<Int, Int> { state, delta in
                state += delta
                return .none
            })
        var screen: Screen? = Screen()
        weak let held = screen
        if let screen { store.subscribe(screen) }
        store.send(1)
        store.send(2)
        #expect(held?.heard.withLock { $0 } == [0, 1, 3])
        screen = nil
        #expect(held == nil, "the store kept its subscriber alive")
        store.send(4) // finds the subscriber gone, and forgets it

        let other = Screen()
        store.subscribe(other)
        store.send(1)
        store.subscribe(other) // again: replaces, does not double
        store.send(1)
        store.unsubscribe(other)
        store.send(1)
        #expect(other.heard.withLock { $0 } == [7, 8, 8, 9])
    }

    /// ReSwift: a subscriber of an `Equatable` state is not called for an action that changed
    /// nothing; one of another state hears every action, as before.
    /// The skipping of an unchanged `Equatable` state holds when an action changes a buffer the
    /// state refers to in place (an append with room to spare keeps the state's own bytes).
    @Test func aSubscriberOfAnEquatableStateHearsChangesMadeInPlace() {
        struct Log: Equatable, Sendable { var lines: [Int] = [] }
        var initial = Log()
        initial.lines.reserveCapacity(16)
        let store = RootStore(
            initialState: initial,
            reducer: Reduce<Log, Int> { state, line in
                if line >= 0 { state.lines.append(line) }
                return .none
            })
        initial = Log() // the store's buffer is its own from here: appends go in place
        // The subscriber keeps nothing of the state, so nothing but the store holds the buffer.
        let heard = Collected<Int>()
        let subscription = store.observe { heard.append($0.lines.count) }
        store.send(1)
        store.send(2)
        store.send(-1)
        store.send(3)
        #expect(heard.all == [0, 1, 2, 3])
        subscription.cancel()
    }

    /// ReSwift's `automaticallySkipsRepeats: false`: a store told not to skip repeats hands its
    /// subscribers the state after every action, an `Equatable` one unchanged included.
    @Test func aStoreThatKeepsRepeatsHandsEveryActionsStateToItsSubscribers() {
        let reducer = Reduce<Int, Int> { state, delta in
            state += delta
            return .none
        }
        let keeping = RootStore(initialState: 0, reducer: reducer, skipsRepeats: false)
        let skipping = RootStore(initialState: 0, reducer: reducer)
        let (heard, heardSkipping) = (Collected<Int>(), Collected<Int>())
        let subscriptions = [keeping.observe { heard.append($0) }, skipping.observe { heardSkipping.append($0) }]
        for delta in [1, 0, 0, 2] {
            keeping.send(delta)
            skipping.send(delta)
        }
        #expect(heard.all == [0, 1, 1, 1, 3])
        #expect(heardSkipping.all == [0, 1, 3])
        for subscription in subscriptions { subscription.cancel() }
    }

    /// ReSwift compares states with `==`: an action that leaves an equal state in new memory (an
    /// array built again) is not heard either.
    @Test func aSubscriberOfAnEquatableStateDoesNotHearAnEqualStateInNewMemory() {
        struct Log: Equatable, Sendable { var lines: [String] = [] }
        let store = RootStore(
            initialState: Log(),
            reducer: Reduce<Log, String?> { state, line in
                if let line { state.lines.append(line) } else { state.lines = state.lines.map { $0 } }
                return .none
            })
        let heard = Collected<[String]>()
        let subscription = store.observe { heard.append($0.lines) }
        store.send("a")
        store.send(nil)
        store.send("b")
        store.send(nil)
        #expect(heard.all == [[], ["a"], ["a", "b"]])
        subscription.cancel()
    }

    @Test func aSubscriberOfAnEquatableStateHearsOnlyChanges() {
        let store = Tally.store()
        let heard = Collected<Int>()
        let subscription = store.observe { heard.append($0.count) }
        store.send(0)
        store.send(2)
        store.send(0)
        store.send(0)
        store.send(1)
        #expect(heard.all == [0, 2, 3], "called for an action that changed nothing")
        subscription.cancel()

        struct Unequatable: Sendable { var count = 0 }
        let other = RootStore(
            initialState: Unequatable(),
            reducer: Reduce<Unequatable, Int> { state, delta in
                state.count += delta
                return .none
            })
        let all = Collected<Int>()
        let kept = other.observe { all.append($0.count) }
        other.send(0)
        other.send(1)
        #expect(all.all == [0, 0, 1])
        kept.cancel()
    }

    @Test func anAbsentOptionalChildIsReportedWithTheReasonGiven() async {
        struct Parent: Reducer {
            struct State: Equatable, Sendable { var child: Screens.Child? }
            let clock: TestClock
            func reduce(into state: inout State, action: Screens.ChildAction) -> Effect<Screens.ChildAction> {
                EmptyReducer<State, Screens.ChildAction>()
                    .ifLet(\.child, action: .identity, absentReason: "open the child first") { Screens.Ticking(clock: clock) }
                    .reduce(into: &state, action: action)
            }
        }
        let diagnostics = DiagnosticLog()
        let store = RootStore(initialState: Parent.State(), reducer: Parent(clock: TestClock()), diagnostics: .collecting(into: diagnostics))
        store.send(.tick)
        #expect(diagnostics.entries.map(\.reason) == ["open the child first"])
        #expect(diagnostics.entries.first?.message.hasSuffix(": open the child first") == true)
    }

    // MARK: - Observation

    @Test func observingAScopedStoreNobodyKeepsGoesOnWhileTheSubscriptionLives() {
        let store = RootStore(initialState: Counter.State(), reducer: Counter())
        let seen = Locked<[Int]>([])
        let subscription = store.scope(state: \.count, action: { (_: Never) -> Counter.Action in }).observe { count in
            seen.withLock { $0.append(count) }
        }
        store.send(.increment)
        store.send(.increment)
        #expect(seen.withLock { $0 } == [0, 1, 2])
        subscription.cancel()
        store.send(.increment)
        #expect(seen.withLock { $0 } == [0, 1, 2])
    }
}
