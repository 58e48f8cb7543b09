import StateStore
import StateStoreTesting
import TestSupport
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
        #expect(throws: Timeline<Counter.State, Counter.Action>.JumpError.dropped(3, available: 16...20, limits: timeline.limits)) {
            try timeline.jump(to: 3)
        }
        #expect(throws: Timeline<Counter.State, Counter.Action>.JumpError.noSuchEntry(21, available: 16...20)) {
            try timeline.jump(to: 21)
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
        #expect(try timeline.entries.map { try timeline.state(at: $0.index).count } == Array((newest - capacity + 1)...newest))
        try timeline.jump(to: newest - capacity + 1)
        #expect(store.currentState.count == newest - capacity + 1)
        #expect(!timeline.undo())
    }

    @Test func undoingAfterTheOldestWereDroppedThenBranchingKeepsTheOrder() throws {
        let store = RootStore(initialState: Counter.State(), reducer: Counter())
        let timeline = Timeline(recording: store, capacity: 4)
        for _ in 0..<10 { store.send(.increment) }
        timeline.undo()
        timeline.undo()
        store.send(.note("branch"))
        #expect(timeline.entries.map(\.index) == [7, 8, 11])
        #expect(try timeline.entries.map { try timeline.state(at: $0.index).count } == [7, 8, 8])
        store.send(.increment)
        store.send(.increment)
        #expect(timeline.entries.map(\.index) == [8, 11, 12, 13])
        #expect(try timeline.state(at: timeline.current.index).count == 10)
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

    @Test func stoppingKeepsWhatWasRecorded() throws {
        let store = RootStore(initialState: Counter.State(), reducer: Counter())
        let timeline = Timeline(recording: store, capacity: 10)
        store.send(.increment)
        timeline.stopRecording()
        store.send(.increment)
        #expect(timeline.entries.count == 2)
        #expect(try timeline.state(at: timeline.current.index).count == 1)
    }

    @Test func statesBetweenCheckpointsAreRecomputedWithoutRerunningEffects() async throws {
        let fetches = Counter.Probe()
        let store = RootStore(initialState: Counter.State(), reducer: Counter(fetches: fetches))
        let timeline = Timeline(recording: store, capacity: 1_000)
        for step in 0..<300 {
            if step % 50 == 0 {
                await store.send(.fetch).finish()
            } else {
                store.send(step.isMultiple(of: 3) ? .note("\(step)") : .increment)
            }
        }
        let fetched = fetches.count
        // Every state, recomputed from the nearest checkpoint, is the one the store reached.
        var expected = Counter.State()
        for entry in timeline.entries.dropFirst() {
            switch entry.action {
            case .increment: expected.count += 1
            case .note(let text): expected.log.append(text)
            case .fetchResponse(let value): expected.count = value
            default: break
            }
            #expect(try timeline.state(at: entry.index) == expected, "entry \(entry.index)")
        }
        try timeline.jump(to: 137)
        #expect(store.currentState == (try timeline.state(at: 137)))
        timeline.undo()
        #expect(store.currentState == (try timeline.state(at: 136)))
        #expect(fetches.count == fetched, "recomputing a state never runs an effect")
    }

    @Test func theByteBudgetDropsTheOldestEntries() throws {
        let store = RootStore(initialState: Counter.State(), reducer: Counter())
        // A note action costs its text's bytes; a state's log shares those texts, and costs a
        // reference per entry.
        let footprint = Timeline<Counter.State, Counter.Action>.Footprint(
            state: { $0.log.count * 16 + 8 },
            action: { if case .note(let text) = $0 { text.utf8.count } else { 8 } }
        )
        let timeline = Timeline(recording: store, limits: .init(entries: 10_000, bytes: 50_000), footprint: footprint)
        let text = String(repeating: "x", count: 1_000)
        for _ in 0..<200 { store.send(.note(text)) }
        #expect(timeline.estimatedBytes <= 50_000)
        let kept = timeline.entries
        #expect(kept.count < 200 && kept.count > 1)
        #expect(kept.last?.index == 200)
        let oldest = try #require(kept.first?.index)
        #expect(try timeline.state(at: oldest).log.count == oldest, "the oldest kept state is still exact")
        #expect(throws: Timeline<Counter.State, Counter.Action>.JumpError.dropped(1, available: oldest...200, limits: timeline.limits)) {
            try timeline.jump(to: 1)
        }
        let message = String(describing: Timeline<Counter.State, Counter.Action>.JumpError.dropped(1, available: oldest...200, limits: timeline.limits))
        #expect(message.contains("entry 1 is no longer kept") && message.contains("\(oldest)…200"))
        #expect(store.currentState.log.count == 200, "a refused jump changes nothing")
    }

    @Test(arguments: [3, 40, 100])
    func randomTravelAlwaysRestoresTheRecordedStates(capacity: Int) throws {
        let store = RootStore(initialState: Counter.State(), reducer: Counter())
        let footprint = Timeline<Counter.State, Counter.Action>.Footprint(
            state: { $0.log.count * 16 + 8 },
            action: { if case .note(let text) = $0 { text.utf8.count } else { 8 } }
        )
        let timeline = Timeline(recording: store, limits: .init(entries: capacity, bytes: 4_000), footprint: footprint)
        var recorded = [0: Counter.State()]
        var random = SeededRandom(seed: 7)
        func next(_ bound: Int) -> Int { Int.random(in: 0..<bound, using: &random) }
        for _ in 0..<2_000 {
            switch next(10) {
            case 0: timeline.undo()
            case 1: timeline.redo()
            case 2:
                let entries = timeline.entries
                try timeline.jump(to: entries[next(entries.count)].index)
            default:
                store.send(next(3) == 0 ? .note(String(repeating: "n", count: next(200))) : .increment)
                recorded[timeline.current.index] = store.currentState
            }
            #expect(store.currentState == recorded[timeline.current.index])
        }
        let entries = timeline.entries
        #expect(entries.count <= capacity)
        for entry in entries {
            #expect(try timeline.state(at: entry.index) == recorded[entry.index], "entry \(entry.index)")
        }
    }

    @Test func anActionMadeByAnEffectIsMadeOnceAndNotAgainByReplay() throws {
        let made = Counter.Probe()
        let store = RootStore(initialState: Counter.State(), reducer: Counter(fetches: made))
        let timeline = Timeline(recording: store, capacity: 1_000)
        for _ in 0..<100 { store.send(.sendMade) }
        #expect(store.currentState.log.count == 100 && made.count == 100, "made when the effect starts, and sent at once")
        for entry in timeline.entries { _ = try timeline.state(at: entry.index) }
        try timeline.jump(to: 7)
        #expect(store.currentState.log.count == 3)
        #expect(made.count == 100, "replaying `sendMade` drops its effect, so nothing is made again")
    }
}
