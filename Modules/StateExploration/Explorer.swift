import StateStore

/// Visits every state a reducer can reach from an initial state, breadth-first, and checks
/// invariants at each (model-based testing, as XState's test models and TLA+'s model checkers).
public struct Explorer<State: Hashable & Sendable, Action: Hashable & Sendable>: Sendable {
    /// How the responses of effects arrive.
    public enum Responses: Sendable {
        /// Each step runs until its work has settled.
        case settled
        /// Each response an effect sends is held and delivered by a step of its own.
        case asChoices
    }

    /// One move of the exploration.
    public enum Step: Hashable, Sendable, CustomStringConvertible {
        /// Sends `action`; with `failing`, the effects it starts meet failing clients.
        case send(Action, failing: Bool)
        /// Delivers a held response (``Responses/asChoices``).
        case respond(Action)

        /// Sends `action` to working clients.
        public static func send(_ action: Action) -> Step { .send(action, failing: false) }

        /// Sends `action` with the clients its effects call failing.
        public static func failing(_ action: Action) -> Step { .send(action, failing: true) }

        /// The action the step reduces first.
        public var action: Action {
            switch self {
            case .send(let action, _), .respond(let action): action
            }
        }

        /// `send <action>`, `send <action>, its clients failing` or `respond <action>`.
        public var description: String {
            switch self {
            case .send(let action, false): "send \(action)"
            case .send(let action, true): "send \(action), its clients failing"
            case .respond(let action): "respond \(action)"
            }
        }
    }

    /// What one step did.
    public struct Transition: Sendable {
        /// The state the step started from.
        public let from: State
        /// The step.
        public let step: Step
        /// The states after each action the step reduced, in order; the last is ``to``.
        public let states: [State]
        /// The diagnostics the step's work raised (rejections among them).
        public let diagnostics: [Diagnostic]
        /// Whether the step's work settled within the explorer's timeout.
        public let settled: Bool
        /// The responses of work still in flight after the step, held for delivery
        /// (``Responses/asChoices``; always empty with `.settled`).
        public let inFlight: [Action]

        /// The state the step ended in.
        public var to: State { states.last ?? from }

        /// The rejections the step's work met: an action the state did not accept.
        public var rejections: [Diagnostic] { diagnostics.filter { $0.kind == .invalidTransition } }
    }

    /// A property every reachable state, or every step, must have.
    public struct Invariant: Sendable {
        fileprivate enum Subject: Sendable {
            case state(@Sendable (State) -> Bool)
            case transition(@Sendable (Transition) -> Bool)
        }

        /// What the property says, for reports.
        public let name: String
        fileprivate let subject: Subject

        /// A property of every state.
        public static func state(_ name: String, _ holds: @escaping @Sendable (State) -> Bool) -> Invariant {
            Invariant(name: name, subject: .state(holds))
        }

        /// A property of every step: what it started from, did, raised and ended in.
        public static func transition(_ name: String, _ holds: @escaping @Sendable (Transition) -> Bool) -> Invariant {
            Invariant(name: name, subject: .transition(holds))
        }
    }

    /// An invariant that does not hold, with the shortest way there.
    public struct Violation: Sendable, CustomStringConvertible {
        /// The invariant's name.
        public let invariant: String
        /// The steps from the initial state, as few as any path to a violation has.
        public let path: [Step]
        /// The state that breaks the invariant (for a step's invariant, where the step ended).
        public let state: State

        /// The path as a script of the line language (or any other).
        public func script(_ line: (Step) -> [String]?) -> String {
            path.compactMap(line).flatMap { $0 }.joined(separator: "\n")
        }

        /// The invariant and the numbered steps that break it.
        public var description: String {
            "“\(invariant)” does not hold after \(path.count) step\(path.count == 1 ? "" : "s"):\n"
                + path.enumerated().map { "  \($0.offset + 1). \($0.element)" }.joined(separator: "\n")
        }
    }

    /// What an exploration found.
    public struct Report: Sendable, CustomStringConvertible {
        /// Distinct states reached, the initial one included.
        public let statesVisited: Int
        /// Steps taken.
        public let transitions: Int
        /// The depth of the deepest state reached.
        public let depthReached: Int
        /// Whether the state budget stopped the exploration before the depth limit.
        public let stoppedByBudget: Bool
        /// How long it took.
        public let duration: Duration
        /// The first invariant found broken, or `nil` when all held.
        public let violation: Violation?

        /// `explored 48,213 states, 301,554 transitions to depth 6 in 2.10 s`, then the violation.
        public var description: String {
            let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
            let summary =
                "explored \(grouped(statesVisited)) states, \(grouped(transitions)) transitions to depth \(depthReached)"
                + (stoppedByBudget ? " (state budget reached)" : "") + " in \(formatted(seconds)) s"
            guard let violation else { return summary }
            return summary + "\n" + violation.description
        }
    }

    private let initialState: State
    private let depth: Int
    private let stateBudget: Int
    private let timeout: Duration
    private let steps: @Sendable (State) -> [Step]
    private let invariants: [Invariant]
    private let perform: @Sendable (Node, Step) async -> (Transition, Node)

    /// An exploration of `reducer` from `initialState`.
    public init<R: Reducer>(
        initialState: State,
        reducer: @escaping @Sendable (_ state: State, _ failing: Bool) -> R,
        responses: Responses = .settled,
        depth: Int,
        stateBudget: Int = 1_000_000,
        timeout: Duration = .seconds(5),
        steps: @escaping @Sendable (State) -> [Step],
        invariants: [Invariant],
        middleware: @escaping @Sendable (_ state: State, _ reducer: R) -> [AnyMiddleware<State, Action>] = { _, _ in [] }
    ) where R.State == State, R.Action == Action {
        self.initialState = initialState
        self.depth = depth
        self.stateBudget = stateBudget
        self.timeout = timeout
        self.steps = steps
        self.invariants = invariants
        let holds = responses == .asChoices
        perform = { node, step in
            let failing = if case .send(_, true) = step { true } else { false }
            let base = reducer(node.state, failing)
            return await Self.run(
                step, from: node, reducer: Holding(base: base, holdsResponses: holds),
                middleware: middleware(node.state, base).map(Holding<R>.adapt), timeout: timeout)
        }
    }

    /// Explores breadth-first until the depth limit, the state budget or the first violation.
    public func run() async -> Report {
        let clock = ContinuousClock()
        let start = clock.now
        let root = Node(state: initialState, pending: [])
        var nodes = [root]
        var parents: [(parent: Int, step: Step)?] = [nil]
        var indexes: [Node: Int] = [root: 0]
        var transitions = 0
        var depthReached = 0
        var stoppedByBudget = false

        func path(to index: Int) -> [Step] {
            var steps: [Step] = []
            var current = index
            while let (parent, step) = parents[current] {
                steps.append(step)
                current = parent
            }
            return steps.reversed()
        }
        func report(_ violation: Violation?) -> Report {
            Report(
                statesVisited: nodes.count, transitions: transitions, depthReached: depthReached,
                stoppedByBudget: stoppedByBudget, duration: clock.now - start, violation: violation)
        }

        for invariant in invariants {
            if case .state(let holds) = invariant.subject, !holds(initialState) {
                return report(Violation(invariant: invariant.name, path: [], state: initialState))
            }
        }
        var frontier = [0]
        var level = 0
        exploring: while level < depth, !frontier.isEmpty {
            var next: [Int] = []
            for index in frontier {
                let node = nodes[index]
                for step in choices(at: node) {
                    let (transition, target) = await perform(node, step)
                    transitions += 1
                    if let broken = firstBroken(by: transition) {
                        depthReached = max(depthReached, level + 1)
                        return report(Violation(invariant: broken.name, path: path(to: index) + [step], state: broken.state))
                    }
                    guard indexes[target] == nil else { continue }
                    guard nodes.count < stateBudget else {
                        stoppedByBudget = true
                        break exploring
                    }
                    indexes[target] = nodes.count
                    nodes.append(target)
                    parents.append((index, step))
                    next.append(nodes.count - 1)
                    depthReached = level + 1
                }
            }
            frontier = next
            level += 1
        }
        return report(nil)
    }

    /// The user's steps, then a delivery of each distinct held response.
    private func choices(at node: Node) -> [Step] {
        var choices = steps(node.state)
        var offered: Set<Action> = []
        for held in node.pending where offered.insert(held.action).inserted {
            choices.append(.respond(held.action))
        }
        return choices
    }

    /// The first invariant `transition` breaks, with the state that breaks it.
    private func firstBroken(by transition: Transition) -> (name: String, state: State)? {
        if !transition.settled {
            return ("every step's work settles within \(timeout)", transition.to)
        }
        for invariant in invariants {
            switch invariant.subject {
            case .state(let holds):
                // A step that reduced nothing ends where it started, which was checked already.
                if let broken = transition.states.first(where: { !holds($0) }) { return (invariant.name, broken) }
            case .transition(let holds):
                if !holds(transition) { return (invariant.name, transition.to) }
            }
        }
        return nil
    }

    /// Runs `step` on a store holding `node`, until its work settles.
    private static func run<R: Reducer>(
        _ step: Step, from node: Node, reducer: Holding<R>, middleware: [AnyMiddleware<Node, Holding<R>.Action>], timeout: Duration
    ) async -> (Transition, Node) where R.State == State, R.Action == Action {
        let store = RootStore(initialState: node, reducer: reducer, diagnostics: .ignore) { MiddlewarePipeline(middleware) }
        let reached = Locked<[State]>([])
        let subscription = store.observeActions { action, node in
            if case .held = action { return }
            reached.withLock { $0.append(node.state) }
        }
        let task =
            switch step {
            case .send(let action, _): store.send(.send(action))
            case .respond(let action): store.send(.respond(action))
            }
        let settled = await task.settle(timeout: timeout)
        subscription.cancel()
        let end = store.currentState
        let transition = Transition(
            from: node.state, step: step, states: reached.withLock { $0 }, diagnostics: task.diagnostics,
            settled: settled, inFlight: end.pending.map(\.action))
        return (transition, end)
    }
}

// MARK: - Holding responses

/// A state of the exploration: the reducer's state and the responses held for delivery.
struct Node<State: Hashable & Sendable, Action: Hashable & Sendable>: Hashable, Sendable {
    /// A response held, with the ids of the cancellable work that sent it.
    struct Held: Hashable, Sendable {
        let action: Action
        let ids: [EffectID]
    }

    var state: State
    var pending: [Held]
}

extension Explorer {
    typealias Node = StateExploration.Node<State, Action>
}

/// Runs a reducer so that what its effects send later is held in the node instead of reduced
/// (when `holdsResponses`), and delivered by a `respond` step.
struct Holding<Base: Reducer>: Reducer where Base.State: Hashable, Base.Action: Hashable {
    typealias State = Node<Base.State, Base.Action>

    enum Action: Sendable {
        /// An action reduced now: a step's, or one an effect sends at once.
        case send(Base.Action)
        /// Delivers the first held response equal to this one.
        case respond(Base.Action)
        /// A response an effect sent, to hold.
        case held(Base.Action, ids: [EffectID])
        /// Cancellable work with this id was cancelled: its held responses go.
        case cancelled(EffectID)
    }

    let base: Base
    let holdsResponses: Bool

    func reduce(into node: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .send(let action):
            return mapped(base.reduce(into: &node.state, action: action))
        case .respond(let action):
            guard let index = node.pending.firstIndex(where: { $0.action == action }) else { return .none }
            node.pending.remove(at: index)
            return mapped(base.reduce(into: &node.state, action: action))
        case .held(let action, let ids):
            node.pending.append(.init(action: action, ids: ids))
            return .none
        case .cancelled(let id):
            node.pending.removeAll { $0.ids.contains(id) }
            return .none
        }
    }

    /// `middleware`, seeing the actions reduced now and the base state.
    static func adapt(_ middleware: AnyMiddleware<Base.State, Base.Action>) -> AnyMiddleware<State, Action> {
        AnyMiddleware { action, context in
            guard case .send(let inner) = action else { return .next(action) }
            let innerContext = MiddlewareContext<Base.State, Base.Action>(
                readState: { context.state?.state }, send: { context.send(.send($0)) })
            switch middleware.handle(inner, context: innerContext) {
            case .next(let next): return .next(.send(next))
            case .stop: return .stop
            case .deferred(let operation): return .deferred { await operation().map { .send($0) } }
            }
        }
    }

    private func mapped(_ effect: Effect<Base.Action>) -> Effect<Action> {
        guard holdsResponses else { return effect.map { .send($0) } }
        return effect.mapForExploration(sent: { .send($0) }, produced: { .held($0, ids: $1) }, cancelled: { .cancelled($0) })
    }
}

/// `48213` as `48,213`.
private func grouped(_ number: Int) -> String {
    let digits = Array(String(number))
    var result = ""
    for (offset, digit) in digits.enumerated() {
        if offset > 0, (digits.count - offset) % 3 == 0 { result.append(",") }
        result.append(digit)
    }
    return result
}

/// Seconds to two significant decimals, without Foundation.
private func formatted(_ seconds: Double) -> String {
    let hundredths = Int((seconds * 100).rounded())
    let fraction = hundredths % 100
    return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
}
