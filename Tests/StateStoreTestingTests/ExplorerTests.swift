import StateStore
import StateStoreTesting
import Testing

/// A number machine: `increment` adds one, `double` doubles, `reset` goes back to zero. The
/// planted violation is the value 11, which takes six steps at least (for example increment,
/// double, double, increment, double, increment).
private struct Numbers: Reducer {
    struct State: Hashable, Sendable {
        var value = 0
    }

    enum Action: Hashable, Sendable {
        case increment, double, reset
    }

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .increment: state.value += 1
        case .double: state.value *= 2
        case .reset: state.value = 0
        }
        return .none
    }
}

/// A request with a response and a cancel: `load` starts a request whose effect answers
/// `loaded` (or `failed` when its client fails); `cancel` stops it. The planted flaw: `loaded`
/// is accepted whatever the phase, so a response arriving after `cancel` would show data the user
/// cancelled, were the response not dropped with the cancelled work.
private struct Request: Reducer {
    struct State: Hashable, Sendable {
        var isLoading = false
        var data: String?
        var error: String?
    }

    enum Action: Hashable, Sendable {
        case load, cancel, loaded(String), failed
    }

    struct CancelID: Hashable, Sendable {}

    let fails: Bool

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .load:
            state.isLoading = true
            state.error = nil
            let fails = fails
            return .run { send in send(fails ? .failed : .loaded("data")) }.cancellable(id: CancelID(), cancelInFlight: true)
        case .cancel:
            state.isLoading = false
            return .cancel(id: CancelID())
        case .loaded(let data):
            state.isLoading = false
            state.data = data
            return .none
        case .failed:
            state.isLoading = false
            state.error = "failed"
            return .none
        }
    }
}

private typealias NumberExplorer = Explorer<Numbers.State, Numbers.Action>
private typealias RequestExplorer = Explorer<Request.State, Request.Action>

private func numbers(depth: Int, budget: Int = 1_000_000, invariants: [NumberExplorer.Invariant]) -> NumberExplorer {
    NumberExplorer(
        initialState: Numbers.State(), reducer: { _, _ in Numbers() }, depth: depth, stateBudget: budget,
        steps: { _ in [.send(.increment), .send(.double), .send(.reset)] }, invariants: invariants)
}

@Suite("Explorer")
struct ExplorerTests {
    @Test func aPlantedViolationIsFoundByItsShortestPath() async throws {
        let report = await numbers(depth: 10, invariants: [.state("never 11") { $0.value != 11 }]).run()
        let violation = try #require(report.violation)
        #expect(violation.invariant == "never 11")
        #expect(violation.state.value == 11)
        #expect(violation.path.count == 6, "BFS finds a shortest path: \(violation)")
        // The path really leads there.
        var state = Numbers.State()
        for step in violation.path { _ = Numbers().reduce(into: &state, action: step.action) }
        #expect(state.value == 11)
        // And no path of five steps does: every state within five steps is below 11 or not 11.
        let shallow = await numbers(depth: 5, invariants: [.state("never 11") { $0.value != 11 }]).run()
        #expect(shallow.violation == nil)
        #expect(shallow.depthReached == 5)
    }

    @Test func theStateBudgetAndTheDepthAreRespected() async {
        let limited = await numbers(depth: 50, budget: 25, invariants: []).run()
        #expect(limited.statesVisited == 25)
        #expect(limited.stoppedByBudget)

        let shallow = await numbers(depth: 2, invariants: []).run()
        #expect(!shallow.stoppedByBudget)
        #expect(shallow.depthReached == 2)
        // From 0: 1 after one step (0 again is a repeat); 2 after two (1 is a repeat): 0, 1, 2.
        #expect(shallow.statesVisited == 3)
        #expect(shallow.transitions == 3 + 3 * 1)
    }

    @Test func theOrderIsDeterministic() async throws {
        let invariants: [NumberExplorer.Invariant] = [.state("below 40") { $0.value < 40 }]
        let first = await numbers(depth: 12, invariants: invariants).run()
        let second = await numbers(depth: 12, invariants: invariants).run()
        let one = try #require(first.violation)
        let other = try #require(second.violation)
        #expect(one.path == other.path)
        #expect(first.statesVisited == second.statesVisited)
        #expect(first.transitions == second.transitions)
    }

    @Test func theReportReadsAsASummaryAndAScript() async throws {
        let report = await numbers(depth: 10, invariants: [.state("never 11") { $0.value != 11 }]).run()
        #expect(report.description.hasPrefix("explored "))
        #expect(report.description.contains("transitions to depth 6 in "))
        let violation = try #require(report.violation)
        let script = violation.script { step in ["number.\(step.action)"] }
        #expect(script.split(separator: "\n").count == 6)
        #expect(script.hasPrefix("number.increment"))
    }

    @Test func heldResponsesMakeInFlightStatesAndTheirInterleavings() async throws {
        let seen = Locked<Set<Request.State>>([])
        let explorer = RequestExplorer(
            initialState: Request.State(), reducer: { _, failing in Request(fails: failing) }, responses: .asChoices, depth: 4,
            steps: { _ in [.send(.load), .failing(.load), .send(.cancel)] },
            invariants: [
                .state("loading shows no error") { !($0.isLoading && $0.error != nil) },
                .state("(records what was visited)") { state in
                    seen.withLock { _ = $0.insert(state) }
                    return true
                },
            ]
        )
        let report = await explorer.run()
        #expect(report.violation == nil, "\(report)")
        let states = seen.withLock { $0 }
        // In flight is a state of its own, with the response still to come, and so is each end.
        #expect(states.contains(Request.State(isLoading: true, data: nil, error: nil)))
        #expect(states.contains(Request.State(isLoading: false, data: "data", error: nil)))
        #expect(states.contains(Request.State(isLoading: false, data: nil, error: "failed")))
        // Loading again after a failure clears the error while the new request is in flight.
        #expect(!states.contains { $0.isLoading && $0.error != nil })
    }

    @Test func settledStepsPassThroughInFlightStatesWithoutStoppingThere() async throws {
        let resting = Locked<Set<Request.State>>([])
        let passed = Locked<Set<Request.State>>([])
        let explorer = RequestExplorer(
            initialState: Request.State(), reducer: { _, _ in Request(fails: false) }, depth: 2,
            steps: { _ in [.send(.load)] },
            invariants: [
                .state("(records every state)") { state in
                    passed.withLock { _ = $0.insert(state) }
                    return true
                },
                .transition("(records where steps end)") { transition in
                    resting.withLock { _ = $0.insert(transition.to) }
                    return true
                },
            ]
        )
        #expect(await explorer.run().violation == nil)
        let loading = Request.State(isLoading: true, data: nil, error: nil)
        #expect(passed.withLock { $0.contains(loading) })
        #expect(!resting.withLock { $0.contains(loading) })
    }

    @Test func aResponseOfCancelledWorkIsNotDelivered() async throws {
        // Were the response kept after `cancel`, data would appear while nothing loads.
        let explorer = RequestExplorer(
            initialState: Request.State(), reducer: { _, _ in Request(fails: false) }, responses: .asChoices, depth: 3,
            steps: { _ in [.send(.load), .send(.cancel)] },
            invariants: [
                .transition("data only arrives for a load in flight") { transition in
                    guard case .respond = transition.step else { return true }
                    return transition.from.isLoading
                }
            ]
        )
        let report = await explorer.run()
        #expect(report.violation == nil, "\(report)")
    }

    @Test func aStepThatDoesNotSettleIsAViolation() async throws {
        struct Stuck: Reducer {
            func reduce(into state: inout Numbers.State, action: Numbers.Action) -> Effect<Numbers.Action> {
                .run { _ in try await Task.sleep(for: .seconds(60)) }
            }
        }
        let report = await NumberExplorer(
            initialState: Numbers.State(), reducer: { _, _ in Stuck() }, depth: 1, timeout: .milliseconds(50),
            steps: { _ in [.send(.increment)] }, invariants: []
        ).run()
        let violation = try #require(report.violation)
        #expect(violation.invariant.hasPrefix("every step's work settles"))
        #expect(violation.path == [.send(.increment)])
    }
}
