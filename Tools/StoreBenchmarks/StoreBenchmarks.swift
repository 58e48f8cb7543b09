import Dispatch
import StateStore

// MARK: - Fixtures

/// The counter every dispatch case sends `increment` to.
struct BenchCounter: Reducer {
    struct State: Equatable, Sendable {
        var count = 0
    }

    enum Action: Equatable, Sendable {
        case increment
        case start
        case startSuspending
        case response
        /// Counts, then starts an effect whose response is `.chain(remaining - 1)`, down to 0.
        case chain(remaining: Int)
        /// `.chain`, with one `await Task.yield()` in each effect before it responds.
        case chainSuspending(remaining: Int)
        /// `.chain`, each effect waiting for a continuation resumed in a block on another queue
        /// (`otherThread`) before it responds: a client that does not lend its thread.
        case chainOtherThread(remaining: Int)
        /// `.chainOtherThread`, the work awaited through ``result(of:on:)``, which lends the queue's
        /// thread to the effect it wakes (as the live clients' calls do).
        case chainLentThread(remaining: Int)
    }

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .increment, .response:
            state.count &+= 1
            return .none
        case .start:
            return .run { send in send(.response) }
        case .startSuspending:
            return .run { send in
                await Task.yield()
                send(.response)
            }
        case .chain(let remaining):
            state.count &+= 1
            guard remaining > 0 else { return .none }
            return .run { send in send(.chain(remaining: remaining - 1)) }
        case .chainSuspending(let remaining):
            state.count &+= 1
            guard remaining > 0 else { return .none }
            return .run { send in
                await Task.yield()
                send(.chainSuspending(remaining: remaining - 1))
            }
        case .chainOtherThread(let remaining):
            state.count &+= 1
            guard remaining > 0 else { return .none }
            return .run { send in
                await withCheckedContinuation { (resumed: CheckedContinuation<Void, Never>) in otherThread.async { resumed.resume() } }
                send(.chainOtherThread(remaining: remaining - 1))
            }
        case .chainLentThread(let remaining):
            state.count &+= 1
            guard remaining > 0 else { return .none }
            return .run { send in
                await result(of: {}, on: otherThread)
                send(.chainLentThread(remaining: remaining - 1))
            }
        }
    }
}

/// A state carrying 100,000 notes that the benchmark's action never touches.
struct BigState: Reducer {
    struct Note: Identifiable, Equatable, Sendable {
        let id: Int
        var text: String
        var updatedAt: Double
    }

    struct State: Equatable, Sendable {
        var count = 0
        var notes: IdentifiedArray<Note> = []
    }

    func reduce(into state: inout State, action: BenchCounter.Action) -> Effect<BenchCounter.Action> {
        state.count &+= 1
        return .none
    }

    static func state(notes: Int) -> State {
        State(
            notes: IdentifiedArray(
                uniqueElements: (0..<notes).map {
                    Note(id: $0, text: "note number \($0), with a body of a realistic length", updatedAt: Double($0))
                }))
    }
}

/// Rows of counters, for the scoped-store fan-out cases.
struct Rows: Reducer {
    struct Row: Identifiable, Equatable, Sendable {
        let id: Int
        var count = 0
    }

    struct State: Equatable, Sendable {
        var rows: IdentifiedArray<Row> = []
    }

    enum Action: Equatable, Sendable {
        case row(id: Int, RowAction)
    }

    enum RowAction: Equatable, Sendable {
        case increment
    }

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .row(let id, .increment):
            state.rows.modify(id: id) { $0.count &+= 1 }
            return .none
        }
    }
}

/// Counts calls from observers on any thread.
final class CallCounter: @unchecked Sendable {
    // Written only by the store's serial path; read after it is idle.
    var calls = 0
}

// MARK: - Cases

/// One reducer call the optimiser cannot fold into the surrounding loop.
@inline(never)
func directReduce(_ reducer: BenchCounter, _ state: inout BenchCounter.State) -> Effect<BenchCounter.Action> {
    reducer.reduce(into: &state, action: .increment)
}

package func dispatchSample(_ operations: Int) -> Double {
    let store = RootStore(initialState: BenchCounter.State(), reducer: BenchCounter())
    let result = nanosecondsPerOperation(operations) {
        for _ in 0..<operations { store.send(.increment) }
    }
    precondition(store.currentState.count == operations, "dispatch lost actions")
    return result
}

func floorSample(_ operations: Int) -> Double {
    let reducer = BenchCounter()
    var state = BenchCounter.State()
    let result = nanosecondsPerOperation(operations) {
        for _ in 0..<operations { blackHole(directReduce(reducer, &state)) }
    }
    precondition(state.count == operations)
    return result
}

func bigStateSample(_ operations: Int, store: RootStore<BigState.State, BenchCounter.Action>) -> Double {
    let before = store.currentState.count
    let result = nanosecondsPerOperation(operations) {
        for _ in 0..<operations { store.send(.increment) }
    }
    precondition(store.currentState.count == before + operations)
    return result
}

func middlewareSample(_ operations: Int) -> Double {
    let store = RootStore(initialState: BenchCounter.State(), reducer: BenchCounter()) {
        EchoMiddleware()
        EchoMiddleware()
        EchoMiddleware()
    }
    let result = nanosecondsPerOperation(operations) {
        for _ in 0..<operations { store.send(.increment) }
    }
    precondition(store.currentState.count == operations, "middleware lost actions")
    return result
}

/// A root store with `children` observed element stores; sends go through the child stores.
final class FanOut {
    let store: RootStore<Rows.State, Rows.Action>
    let children: [Store<Rows.Row, Rows.RowAction>]
    let calls = CallCounter()
    private var subscriptions: [StoreSubscription] = []

    init(children count: Int) {
        let store = RootStore(
            initialState: Rows.State(rows: IdentifiedArray(uniqueElements: (0..<count).map { Rows.Row(id: $0) })),
            reducer: Rows())
        self.store = store
        children = (0..<count).compactMap { id in store.scope(\.rows, id: id, action: Rows.Action.row) }
        let calls = calls
        subscriptions = children.map { child in
            child.observe {
                blackHole($0); calls.calls += 1
            }
        }
    }

    func sample(_ operations: Int) -> Double {
        let before = calls.calls
        let count = children.count
        let result = nanosecondsPerOperation(operations) {
            for index in 0..<operations { children[index % count].send(.increment) }
        }
        precondition(calls.calls - before == operations, "each action must notify exactly one child")
        return result
    }
}

/// The least a send through one of `rows` row stores touches, without a store: the row store it
/// goes through, a lookup of the row by id, the row, and the row's observer, round robin as
/// ``FanOut`` sends. Its growth from 100 to 10,000 rows is what memory alone costs here.
final class FanOutFloor {
    final class RowStore {
        let id: Int
        var seen = 0
        let observe: (Int) -> Void

        init(id: Int, observe: @escaping (Int) -> Void) {
            self.id = id
            self.observe = observe
        }
    }

    private var rows: [Rows.Row]
    private var positions: [Int: Int] = [:]
    private var stores: [RowStore] = []
    let calls = CallCounter()

    init(rows count: Int) {
        rows = (0..<count).map { Rows.Row(id: $0) }
        for position in rows.indices { positions[rows[position].id] = position }
        let calls = calls
        stores = (0..<count).map { id in RowStore(id: id) { calls.calls &+= $0 & 1 } }
    }

    func sample(_ operations: Int) -> Double {
        let count = stores.count
        return nanosecondsPerOperation(operations) {
            for index in 0..<operations {
                let store = stores[index % count]
                guard let position = positions[store.id] else { continue }
                rows[position].count &+= 1
                if rows[position].count != store.seen {
                    store.seen = rows[position].count
                    store.observe(store.seen)
                }
            }
        }
    }
}

/// What a long list does, on an identified array of `count` rows that no store holds: append
/// a row, read one at a position, find another's position by id, remove the appended row.
final class ListOperations {
    private var rows: IdentifiedArray<Rows.Row>
    private let count: Int
    private var seed: UInt64 = 0x9E37_79B9_7F4A_7C15

    init(rows count: Int) {
        self.count = count
        rows = IdentifiedArray(uniqueElements: (0..<count).map { Rows.Row(id: $0) })
    }

    /// Nanoseconds per round of the four operations.
    func sample(_ operations: Int) -> Double {
        var found = 0
        let result = nanosecondsPerOperation(operations) {
            for round in 0..<operations {
                let id = count + round
                rows.append(Rows.Row(id: id))
                found &+= rows[nextRandom(below: count)].id
                found &+= rows.index(id: nextRandom(below: count)) ?? 0
                rows.remove(id: id)
            }
        }
        blackHole(found)
        precondition(rows.count == count, "the list must end as long as it began")
        return result
    }

    private func nextRandom(below bound: Int) -> Int {
        // A linear congruential step: the same positions in every run, no system call.
        seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int(truncatingIfNeeded: seed >> 33) % bound
    }
}

/// Nanoseconds per cancellation when `observers` observers of one store are cancelled in the
/// order they subscribed, as a screen of rows each observing the store is torn down.
func observerCancellationSample(observers: Int) -> Double {
    let store = RootStore(initialState: BenchCounter.State(), reducer: BenchCounter())
    let calls = CallCounter()
    let subscriptions = (0..<observers).map { _ in store.observe { calls.calls &+= $0.count & 1 } }
    let result = nanosecondsPerOperation(observers) {
        for subscription in subscriptions { subscription.cancel() }
    }
    store.send(.increment)
    precondition(calls.calls == 0, "a cancelled observer was called")
    return result
}

func observersSample(_ operations: Int, observers: Int) -> Double {
    let store = RootStore(initialState: BenchCounter.State(), reducer: BenchCounter())
    let calls = CallCounter()
    let subscriptions = (0..<observers).map { _ in store.observe { state in calls.calls &+= state.count & 1 } }
    let result = nanosecondsPerOperation(operations) {
        for _ in 0..<operations { store.send(.increment) }
    }
    blackHole(calls.calls)
    withExtendedLifetime(subscriptions) {}
    return result
}

/// `scopes` stores each selecting the count of one root store, each observed, the count changing
/// with every action: a screen of small views, each selecting its own value.
func observersSelectingSample(_ operations: Int, scopes: Int) -> Double {
    let store = RootStore(initialState: BenchCounter.State(), reducer: BenchCounter())
    let calls = CallCounter()
    let counts = (0..<scopes).map { _ in store.scope(state: \.count, action: { (action: BenchCounter.Action) in action }) }
    let subscriptions = counts.map { count in count.observe { value in calls.calls &+= value & 1 } }
    let before = calls.calls
    let result = nanosecondsPerOperation(operations) {
        for _ in 0..<operations { store.send(.increment) }
    }
    precondition(calls.calls - before == scopes * ((operations + 1) / 2), "each scope must hear each change")
    withExtendedLifetime((counts, subscriptions)) {}
    return result
}

/// How deep each chain of effect round trips goes, and how many effects each burst starts.
let effectBatch = 10_000

/// Round trips per second, chained: `chain(effectBatch)` starts an effect whose response starts
/// the next, `effectBatch` deep.
func effectChainSample(_ operations: Int, chain: (Int) -> BenchCounter.Action) async -> Double {
    let store = RootStore(initialState: BenchCounter.State(), reducer: BenchCounter())
    let chains = max(1, operations / effectBatch)
    let start = monotonicNanoseconds()
    for _ in 0..<chains {
        store.send(chain(effectBatch))
        await store.waitForEffects()
    }
    let elapsed = monotonicNanoseconds() - start
    precondition(store.currentState.count == chains * (effectBatch + 1), "round trips lost responses")
    return Double(chains * effectBatch) / (Double(elapsed) / 1e9)
}

/// The queue the other-thread round trips do their work on.
let otherThread = DispatchQueue(label: "bench.other-thread")

/// The same chains without a store: each trip hops to `otherThread` and back to a serial home
/// queue, where a counter stands for the reducer (two `DispatchQueue.async` calls, as the peers'
/// round trip does).
func dispatchChainOtherThreadSample(_ operations: Int) -> Double {
    final class Chain: @unchecked Sendable {
        // Touched on `home` only.
        var count = 0
        let home = DispatchQueue(label: "bench.home")
        let done = DispatchSemaphore(value: 0)

        func trip(_ remaining: Int) {
            count &+= 1
            guard remaining > 0 else {
                done.signal()
                return
            }
            otherThread.async { self.home.async { self.trip(remaining - 1) } }
        }
    }
    let chain = Chain()
    let chains = max(1, operations / effectBatch)
    let start = monotonicNanoseconds()
    for _ in 0..<chains {
        chain.home.async { chain.trip(effectBatch) }
        chain.done.wait()
    }
    let elapsed = monotonicNanoseconds() - start
    precondition(chain.home.sync { chain.count } == chains * (effectBatch + 1), "round trips lost answers")
    return Double(chains * effectBatch) / (Double(elapsed) / 1e9)
}

/// Round trips per second when `effectBatch` effects are started in a loop and all their
/// responses are received.
func effectBurstSample(_ operations: Int) async -> Double {
    let store = RootStore(initialState: BenchCounter.State(), reducer: BenchCounter())
    let bursts = max(1, operations / effectBatch)
    let start = monotonicNanoseconds()
    for _ in 0..<bursts {
        for _ in 0..<effectBatch { store.send(.start) }
        await store.waitForEffects()
    }
    let elapsed = monotonicNanoseconds() - start
    precondition(store.currentState.count == bursts * effectBatch, "the burst lost responses")
    return Double(bursts * effectBatch) / (Double(elapsed) / 1e9)
}

/// Every case of issue 2, in the order of its table.
package func storeBenchmarks(_ plan: RunPlan, selected: @Sendable (String) -> Bool) async -> [CaseResult] {
    var results: [CaseResult] = []
    let operations = plan.iterations(2_000_000)

    var dispatch: [Double] = []
    if selected("dispatch") || selected("floor") || selected("dispatch/floor") {
        dispatch = repeated(plan) { dispatchSample(operations) }
        if selected("dispatch") {
            results.append(CaseResult(name: "dispatch", unit: .nanoseconds, samples: dispatch, target: .atMost(50)))
        }
    }
    if selected("floor") || selected("dispatch/floor") {
        let floor = repeated(plan) { floorSample(operations * 10) }
        results.append(CaseResult(name: "floor", unit: .nanoseconds, samples: floor, target: nil))
        let ratios = zip(dispatch, floor).map { $0 / $1 }
        results.append(CaseResult(name: "dispatch/floor", unit: .ratio, samples: ratios, target: nil))
    }
    if selected("big-state") {
        let big = RootStore(initialState: BigState.state(notes: 100_000), reducer: BigState())
        let (ratios, _) = pairedRatios(
            plan, base: { dispatchSample(operations) },
            variant: { bigStateSample(operations, store: big) })
        results.append(CaseResult(name: "big-state", unit: .ratio, samples: ratios, target: .atMost(1.3)))
    }
    if selected("fan-out") {
        let fanOut = FanOut(children: 1_000)
        let samples = repeated(plan) { fanOut.sample(plan.iterations(200_000)) }
        results.append(CaseResult(name: "fan-out", unit: .nanoseconds, samples: samples, target: .atMost(600)))
    }
    if selected("fan-out-growth") {
        let small = FanOut(children: 100)
        let large = FanOut(children: 10_000)
        let (ratios, _) = pairedRatios(
            plan, base: { small.sample(plan.iterations(200_000)) },
            variant: { large.sample(plan.iterations(200_000)) })
        results.append(CaseResult(name: "fan-out-growth", unit: .ratio, samples: ratios, target: .atMost(1.2)))
    }
    if selected("fan-out-growth-floor") {
        let small = FanOutFloor(rows: 100)
        let large = FanOutFloor(rows: 10_000)
        let (ratios, _) = pairedRatios(
            plan, base: { small.sample(plan.iterations(2_000_000)) },
            variant: { large.sample(plan.iterations(2_000_000)) })
        results.append(CaseResult(name: "fan-out-growth-floor", unit: .ratio, samples: ratios, target: nil))
    }
    if selected("list-operations") {
        let small = ListOperations(rows: 1_000)
        let large = ListOperations(rows: 100_000)
        let (ratios, smallSamples) = pairedRatios(
            plan, base: { small.sample(plan.iterations(200_000)) },
            variant: { large.sample(plan.iterations(200_000)) })
        let largeSamples = zip(ratios, smallSamples).map { $0 * $1 }
        results.append(CaseResult(name: "list-operations-100k", unit: .nanoseconds, samples: largeSamples, target: nil))
        results.append(CaseResult(name: "list-operations-growth", unit: .ratio, samples: ratios, target: nil))
    }
    if selected("observers") {
        let samples = repeated(plan) { observersSample(plan.iterations(200_000), observers: 100) }
        results.append(CaseResult(name: "observers", unit: .nanoseconds, samples: samples, target: .atMost(300)))
    }
    if selected("observers-selecting") {
        let samples = repeated(plan) { observersSelectingSample(plan.iterations(50_000), scopes: 100) }
        results.append(CaseResult(name: "observers-selecting", unit: .nanoseconds, samples: samples, target: .atMost(3_000)))
    }
    if selected("observers-cancel-growth") {
        let (ratios, _) = pairedRatios(
            plan, base: { observerCancellationSample(observers: 100) },
            variant: { observerCancellationSample(observers: 10_000) })
        results.append(CaseResult(name: "observers-cancel-growth", unit: .ratio, samples: ratios, target: .atMost(2)))
    }
    if selected("effect-round-trip") {
        let samples = await repeated(plan) { await effectChainSample(plan.iterations(200_000), chain: BenchCounter.Action.chain) }
        results.append(CaseResult(name: "effect-round-trip", unit: .perSecond, samples: samples, target: .atLeast(1_500_000)))
    }
    if selected("effect-round-trip-suspending") {
        let samples = await repeated(plan) { await effectChainSample(plan.iterations(100_000), chain: BenchCounter.Action.chainSuspending) }
        results.append(CaseResult(name: "effect-round-trip-suspending", unit: .perSecond, samples: samples, target: .atLeast(400_000)))
    }
    if selected("effect-round-trip-other-thread") || selected("dispatch-round-trip-other-thread") || selected("effect-round-trip-lent-thread") {
        // The three interleaved, each with the context switches of its trips.
        // Whole chains: the samples run this many trips, whatever the plan's scale.
        let trips = max(1, plan.iterations(50_000) / effectBatch) * effectBatch
        let kinds: [(name: String, sample: () async -> Double)] = [
            ("dispatch-round-trip-other-thread", { dispatchChainOtherThreadSample(trips) }),
            ("effect-round-trip-other-thread", { await effectChainSample(trips, chain: BenchCounter.Action.chainOtherThread) }),
            ("effect-round-trip-lent-thread", { await effectChainSample(trips, chain: BenchCounter.Action.chainLentThread) }),
        ]
        for _ in 0..<plan.warmUps {
            for kind in kinds { _ = await kind.sample() }
        }
        var rates = kinds.map { _ in [Double]() }
        var switches = kinds.map { _ in [Double]() }
        for _ in 0..<plan.runs {
            for (index, kind) in kinds.enumerated() {
                let before = contextSwitches()
                rates[index].append(await kind.sample())
                switches[index].append(Double(contextSwitches() - before) / Double(trips))
            }
        }
        for (index, kind) in kinds.enumerated() {
            results.append(CaseResult(name: kind.name, unit: .perSecond, samples: rates[index], target: nil))
            results.append(CaseResult(name: kind.name + " switches/trip", unit: .ratio, samples: switches[index], target: nil))
        }
        results.append(
            CaseResult(
                name: "effect-round-trip-other-thread/dispatch", unit: .ratio, samples: zip(rates[1], rates[0]).map { $0 / $1 }, target: nil))
    }
    if selected("effect-burst") {
        let samples = await repeated(plan) { await effectBurstSample(plan.iterations(200_000)) }
        results.append(CaseResult(name: "effect-burst", unit: .perSecond, samples: samples, target: .atLeast(600_000)))
    }
    if selected("middleware") {
        let (ratios, _) = pairedRatios(plan, base: { dispatchSample(operations) }, variant: { middlewareSample(operations) })
        results.append(CaseResult(name: "middleware", unit: .ratio, samples: ratios, target: .atMost(1.5)))
    }
    return results
}
