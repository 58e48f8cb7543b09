import AppEnvironment
import AppHost
import Foundation
import Models
import Reducers
import StateExploration
import StateStore
import Synchronization
import ViewModels

/// Explores the whole app from the signed-out state through `Intent`s, as a user could drive
/// it, and checks the app's invariants after every one: what `appcore-batch --explore` runs.
public struct AppExplorer: Sendable {
    /// One move: an intent, and the client call it makes that fails, if any.
    public struct Move: Hashable, Sendable, CustomStringConvertible {
        /// What the user asks.
        public let intent: Intent
        /// The endpoint whose next call fails, or `nil` when every client works.
        public let failing: Endpoint?
        /// Where the note the intent names is in the notes list shown (1 for the first), so
        /// that a script can name it whatever ids another run draws.
        public let notePosition: Int?
        /// Whether the move, where a counterexample made it, was rejected or met a failure, so
        /// that its script line must start with `!
        public internal(set) var isRefused = false

        /// `intent`, with `failing`'s next call failing, naming the note at `notePosition` of
        /// the list shown when it names one.
        public init(intent: Intent, failing: Endpoint?, notePosition: Int? = nil) {
            self.intent = intent
            self.failing = failing
            self.notePosition = notePosition
        }

        /// The intent, and the endpoint that fails if one does.
        public var description: String {
            failing.map { "\(intent), with \($0) failing" } ?? intent.description
        }
    }

    /// What an exploration found.
    public struct Outcome: Sendable, CustomStringConvertible {
        /// The summary line: `explored 48,213 states, 301,554 transitions to depth 6 in 2.1 s`.
        public let summary: String
        /// The invariant broken, or `nil` when every one held.
        public let violatedInvariant: String?
        /// The shortest sequence of moves that breaks it (empty when none is broken).
        public let counterexample: [Move]
        /// Distinct states visited.
        public let statesVisited: Int
        /// Moves tried.
        public let transitions: Int
        /// The depth of the deepest state reached.
        public let depthReached: Int
        /// How long the exploration took.
        public let duration: Duration

        /// The summary, then the broken invariant and its moves, numbered.
        public var description: String {
            guard let violatedInvariant else { return summary }
            return summary + "\n“\(violatedInvariant)” does not hold after:\n"
                + counterexample.enumerated().map { "  \($0.offset + 1). \($0.element)" }.joined(separator: "\n")
        }
    }

    /// A property of the screens that must hold in every state, checked besides the app's own.
    public struct Invariant: Sendable {
        /// What the property says, for the report.
        public let name: String
        /// Whether the screens have it.
        public let holds: @Sendable (Screens) -> Bool

        /// The property `name`, which `holds` checks.
        public init(_ name: String, _ holds: @escaping @Sendable (Screens) -> Bool) {
            self.name = name
            self.holds = holds
        }
    }

    /// The account the exploration signs in to.
    public static let account = Credentials(username: "explorer", password: "correct-horse")
    static let wrongPassword = "wrong-horse"

    private let loginStyle: LoginStyle
    private let depth: Int
    private let stateBudget: Int
    private let invariants: [Invariant]

    /// An exploration of the app in `loginStyle` to `depth` intents, visiting at most
    /// `stateBudget` states, checking `invariants` besides the app's own.
    public init(loginStyle: LoginStyle = .finiteStates, depth: Int = 6, stateBudget: Int = 1_000_000, invariants: [Invariant] = []) {
        self.loginStyle = loginStyle
        self.depth = depth
        self.stateBudget = stateBudget
        self.invariants = invariants
    }

    /// The moves worth trying in `state`.
    public static func moves(in state: AppFeature.State) -> [Move] {
        Intent.Kind.allCases.flatMap { moves(of: $0, in: state) }
    }

    /// The moves of `kind` worth trying in `state`; a new intent must say here what to explore.
    private static func moves(of kind: Intent.Kind, in state: AppFeature.State) -> [Move] {
        let first = state.notes.visibleItems.first?.id
        return switch kind {
        case .signUp: [Move(intent: .signUp(username: account.username.rawValue, password: account.password.revealed), failing: nil)]
        case .typeUsername:
            [
                Move(intent: .typeUsername(username: account.username.rawValue), failing: nil),
                Move(intent: .typeUsername(username: "x"), failing: nil),
            ]
        case .typePassword:
            [
                Move(intent: .typePassword(password: account.password.revealed), failing: nil),
                Move(intent: .typePassword(password: wrongPassword), failing: nil),
            ]
        case .signIn: [Move(intent: .signIn, failing: nil), Move(intent: .signIn, failing: .authAuthenticate)]
        case .dismissError: [Move(intent: .dismissError, failing: nil)]
        case .signOut: [Move(intent: .signOut, failing: nil)]
        case .loadProfile: [Move(intent: .loadProfile, failing: nil), Move(intent: .loadProfile, failing: .profileLoad)]
        case .retryProfile: [Move(intent: .retryProfile, failing: nil)]
        case .addPost: [Move(intent: .addPost(text: "hello"), failing: nil)]
        case .addNote: [Move(intent: .addNote(text: "milk"), failing: nil), Move(intent: .addNote(text: "milk"), failing: .notesCreate)]
        case .editNote: first.map { [Move(intent: .editNote(id: $0, text: "oat milk"), failing: nil, notePosition: 1)] } ?? []
        case .deleteNote: first.map { [Move(intent: .deleteNote(id: $0), failing: nil, notePosition: 1)] } ?? []
        case .retryNote: first.map { [Move(intent: .retryNote(id: $0), failing: nil, notePosition: 1)] } ?? []
        case .reloadNotes: [Move(intent: .reloadNotes, failing: nil), Move(intent: .reloadNotes, failing: .notesList)]
        case .dismissNotesError: [Move(intent: .dismissNotesError, failing: nil)]
        case .increment: [Move(intent: .increment, failing: nil)]
        case .decrement: [Move(intent: .decrement, failing: nil)]
        // Opening a note, searching, paging and resetting the counter only choose what the
        // screens show of data other moves make; leaving them out keeps depth 6 within a second.
        case .selectNote, .searchNotes, .typeNotesSearch, .showMoreNotes, .reset: []
        }
    }

    /// Explores breadth-first until the depth, the state budget or the first broken invariant.
    public func run() async -> Outcome {
        let initial = AppFeature.State(loginStyle: loginStyle)
        let signedOut = Screens(initial)
        let secrets = [Self.account.password.revealed, Self.wrongPassword, "memory-"].map { Array($0.utf8) }
        // Each state is rendered and searched once, however many steps pass through it.
        let clean = Locked<Set<AppFeature.State>>([])
        let report = await Explorer<AppFeature.State, IntentReducer.Action>(
            initialState: initial,
            reducer: { state, _ in IntentReducer(environment: Self.environment(for: state)) },
            depth: depth,
            stateBudget: stateBudget,
            steps: { state in Self.moves(in: state).map { .send(.intent($0)) } },
            invariants: [
                .state("no screen shows a password or an access token") { state in
                    if clean.withLock({ $0.contains(state) }) { return true }
                    let text = Self.text(of: Screens(state))
                    guard !secrets.contains(where: { Self.contains(text, $0) }) else { return false }
                    clean.withLock { _ = $0.insert(state) }
                    return true
                },
                .transition("a rejected intent changes nothing") { transition in
                    transition.rejections.isEmpty || transition.to == transition.from
                },
                .transition("signing out leaves no user data on any screen") { transition in
                    guard case .intent(let move) = transition.step.action, move.intent == .signOut, transition.rejections.isEmpty
                    else { return true }
                    let screens = Screens(transition.to)
                    return screens.session == signedOut.session && screens.profile == signedOut.profile && screens.notes == signedOut.notes
                },
            ] + invariants.map { invariant in .state(invariant.name) { invariant.holds(Screens($0)) } },
            middleware: { state, reducer in
                guard state.loginStyle == .middleware else { return [] }
                return [
                    AnyMiddleware(
                        LoginMiddleware<AppFeature.State, IntentReducer.Action>(
                            auth: reducer.clients.auth, action: IntentReducer.loginPath))
                ]
            }
        ).run()
        let path =
            report.violation?.path.compactMap { step -> Move? in
                guard case .intent(let move) = step.action else { return nil }
                return move
            } ?? []
        let moves = await Self.markingRefusals(of: path, from: initial)
        return Outcome(
            summary: report.description.split(separator: "\n").first.map(String.init) ?? "",
            violatedInvariant: report.violation?.invariant, counterexample: moves,
            statesVisited: report.statesVisited, transitions: report.transitions,
            depthReached: report.depthReached, duration: report.duration)
    }

    /// `moves` taken again from `initial`, each marked with whether it was rejected or met a
    /// failure there (as ``AppHost/perform(_:timeout:)`` would report it).
    private static func markingRefusals(of moves: [Move], from initial: AppFeature.State) async -> [Move] {
        var state = initial
        var marked: [Move] = []
        for var move in moves {
            let reducer = IntentReducer(environment: environment(for: state))
            let store = RootStore(initialState: state, reducer: reducer, diagnostics: .ignore) {
                if state.loginStyle == .middleware {
                    LoginMiddleware<AppFeature.State, IntentReducer.Action>(auth: reducer.clients.auth, action: IntentReducer.loginPath)
                }
            }
            let task = store.send(.intent(move))
            await task.settle(timeout: .seconds(5))
            move.isRefused = IntentOutcome.Status(deciding: task.diagnostics) != nil
            state = store.currentState
            store.shutDown()
            marked.append(move)
        }
        return marked
    }

    /// Whether `text` holds `part` (a plain scan: both are short).
    private static func contains(_ text: [UInt8], _ part: [UInt8]) -> Bool {
        guard let first = part.first, text.count >= part.count else { return false }
        var index = 0
        while index <= text.count - part.count {
            if text[index] == first, text[index..<index + part.count].elementsEqual(part) { return true }
            index += 1
        }
        return false
    }

    /// The screens as JSON text, for looking for what must not show.
    private static func text(of screens: Screens) -> [UInt8] {
        (try? JSONEncoder().encode(screens)).map { Array($0) } ?? []
    }

    /// The in-memory clients over a backend holding the account, its session when `state` is signed
    /// in, and the notes `state` says are stored.
    static func environment(for state: AppFeature.State) -> AppEnvironment {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let backend = InMemoryBackend(uuid: .incrementing(), now: DateGenerator { start })
        _ = try? backend.signUp(account)
        if state.isSignedIn, let session = try? backend.authenticate(account) {
            for item in state.notes.items.reversed() where item.isStored {
                _ = try? backend.create(session.token, item.note)
            }
        }
        var environment = AppEnvironment.inMemory(backend: backend, clock: ImmediateClock(), start: start)
        let next = Atomic<UInt64>(1_000 + (state.notes.items.map(\.note.id.rawValue.sequence).max() ?? 0))
        environment.uuid = UUIDGenerator { UUID(sequence: next.add(1, ordering: .relaxed).newValue) }
        environment.now = DateGenerator { start }
        return environment
    }
}

/// The app driven by intents, as ``AppHost/perform(_:timeout:)`` drives it: an intent becomes
/// its actions (or a rejection), sent in order; a failing move arms its endpoint first.
struct IntentReducer: Reducer {
    enum Action: Hashable, Sendable {
        case intent(AppExplorer.Move)
        case app(AppFeature.Action)
    }

    static let loginPath = ActionPath<Action, LoginAction>(
        embed: { .app(AppFeature.Action.loginPath.embed($0)) },
        extract: { if case .app(let action) = $0 { AppFeature.Action.loginPath.extract(action) } else { nil } }
    )

    let clients: AppEnvironment
    /// What a failing move arms (one move per reducer: the explorer makes one for each).
    private let failures: FailureInjector
    private let app: AppFeature

    init(environment: AppEnvironment) {
        let failures = FailureInjector()
        self.failures = failures
        clients = environment.injectingFailures(failures)
        app = AppFeature(environment: clients)
    }

    func reduce(into state: inout AppFeature.State, action: Action) -> Effect<Action> {
        switch action {
        case .intent(let move):
            let current = state
            switch move.intent.actions(in: { current }) {
            case .failure(let refusal):
                return .diagnostic(.invalidTransition(action: move.intent, state: "the app", reason: refusal.reason))
            case .success(let actions):
                // Armed here, not in an effect, so that the intent's first call meets it; the
                // reducer and its injector are made for this one move.
                if let failing = move.failing { failures.failNext(failing) }
                return .merge(actions.map { .send(.app($0)) })
            }
        case .app(let action):
            return app.reduce(into: &state, action: action).map { .app($0) }
        }
    }
}
