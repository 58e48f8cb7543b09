import StateStore
import Testing

@Suite("Timeline")
struct TimelineTests {
    @Test func undoRedoAndJumpRestoreStatesWithoutRerunningEffects() async throws {
        let fetches = Counter.Probe()
        let store = RootStore(initialState: Counter.State(), reducer: Counter(fetches: fetches))
        let timeline = Timeline(recording: store, capacity: 100)
        store.send(.increment)
        await store.send(.fetch).finish()
        store.send(.increment)
        #expect(fetches.count == 1)
        #expect(timeline.entries.map(\.action) == [nil, .increment, .fetch, .fetchResponse(42), .increment])
        #expect(store.currentState.count == 43)

        #expect(timeline.undo())
        #expect(store.currentState.count == 42)
        #expect(timeline.undo())
        #expect(timeline.undo())
        #expect(store.currentState.count == 1)
        #expect(timeline.redo())
        #expect(timeline.redo())
        #expect(store.currentState.count == 42)
        try timeline.jump(to: 0)
        #expect(store.currentState.count == 0)
        #expect(!timeline.undo())
        try timeline.jump(to: 4)
        #expect(store.currentState.count == 43)
        #expect(!timeline.redo())
        #expect(fetches.count == 1, "time travel never runs an effect again")
    }

    @Test func aNewActionAfterUndoDiscardsTheRedoBranch() {
        let store = RootStore(initialState: Counter.State(), reducer: Counter())
        let timeline = Timeline(recording: store, capacity: 10)
        store.send(.increment)
        store.send(.increment)
        timeline.undo()
        store.send(.note("branch"))
        #expect(!timeline.canRedo)
        #expect(timeline.entries.map(\.action) == [nil, .increment, .note("branch")])
        #expect(timeline.entries.map(\.index) == [0, 1, 3])
        #expect(store.currentState == Counter.State(count: 1, log: ["branch"]))
    }

    @Test func theHistoryIsBoundedByItsCapacity() {
        let store = RootStore(initialState: Counter.State(), reducer: Counter())
        let timeline = Timeline(recording: store, capacity: 5)
        for _ in 0..<20 { store.send(.increment) }
        #expect(timeline.entries.count == 5)
        #expect(timeline.entries.map(\.index) == [16, 17, 18, 19, 20])
        #expect(throws: Timeline<Counter.State, Counter.Action>.JumpError.noSuchEntry(3, available: 16...20)) {
            try timeline.jump(to: 3)
        }
        #expect(store.currentState.count == 20)
    }

    /// Capacities that fill the buffer's storage exactly (2, 8, 16) and ones that leave room (5, 9).
    @Test(arguments: [2, 5, 8, 9, 16])
    func droppingTheOldestKeepsTheNewestInOrder(capacity: Int) throws {
        let store = RootStore(initialState: Counter.State(), reducer: Counter())
        let timeline = Timeline(recording: store, capacity: capacity)
        for _ in 0..<(3 * capacity + 1) { store.send(.increment) }
        let newest = 3 * capacity + 1
        #expect(timeline.entries.map(\.index) == Array((newest - capacity + 1)...newest))
        #expect(timeline.entries.map(\.state.count) == Array((newest - capacity + 1)...newest))
        try timeline.jump(to: newest - capacity + 1)
        #expect(store.currentState.count == newest - capacity + 1)
        #expect(!timeline.undo())
    }

    @Test func undoingAfterTheOldestWereDroppedThenBranchingKeepsTheOrder() {
        let store = RootStore(initialState: Counter.State(), reducer: Counter())
        let timeline = Timeline(recording: store, capacity: 4)
        for _ in 0..<10 { store.send(.increment) }
        timeline.undo()
        timeline.undo()
        store.send(.note("branch"))
        #expect(timeline.entries.map(\.index) == [7, 8, 11])
        #expect(timeline.entries.map(\.state.count) == [7, 8, 8])
        store.send(.increment)
        store.send(.increment)
        #expect(timeline.entries.map(\.index) == [8, 11, 12, 13])
        #expect(timeline.current.state.count == 10)
    }

    @Test func restoringNotifiesObserversButNotActionObservers() {
        let store = RootStore(initialState: Counter.State(), reducer: Counter())
        let timeline = Timeline(recording: store, capacity: 10)
        let states = Collected<Int>()
        let actions = Collected<Counter.Action>()
        let stateSubscription = store.observe { states.append($0.count) }
        let actionSubscription = store.observeActions { action, _ in actions.append(action) }
        store.send(.increment)
        timeline.undo()
        #expect(states.all == [0, 1, 0])
        #expect(actions.all == [.increment])
        _ = (stateSubscription, actionSubscription)
    }

    @Test func stoppingKeepsWhatWasRecorded() {
        let store = RootStore(initialState: Counter.State(), reducer: Counter())
        let timeline = Timeline(recording: store, capacity: 10)
        store.send(.increment)
        timeline.stopRecording()
        store.send(.increment)
        #expect(timeline.entries.count == 2)
        #expect(timeline.current.state.count == 1)
    }
}
