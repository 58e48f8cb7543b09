import AppEnvironment
import Foundation
import Models
import Reducers
import StateStore
import StateStoreTesting
import Testing

// Every reachable state of each feature, checked against its invariants (issue 17). Effects
// answer from models of the clients: deterministic, failing when a step asks for a failure.

/// Signs in exactly `goodCredentials`; fails with a network error when `failing`.
private func modelAuth(failing: Bool) -> AuthClient {
    AuthClient(
        signUp: { _ throws(AppError) in throw .network(reason: "not modelled") },
        authenticate: { credentials throws(AppError) in
            if failing { throw .network(reason: "simulated") }
            guard credentials == goodCredentials else { throw .invalidCredentials }
            return aliceSession
        },
        signOut: { _ in }
    )
}

/// Alice's profile and posts; each call fails with a network error when `failing`.
private func modelProfile(failing: Bool) -> ProfileClient {
    ProfileClient(
        load: { _ throws(AppError) in
            if failing { throw .network(reason: "simulated") }
            return alice
        },
        loadPosts: { _ throws(AppError) in
            if failing { throw .network(reason: "simulated") }
            return [post(1, "first")]
        },
        addPost: { _, text throws(AppError) in
            if failing { throw .network(reason: "simulated") }
            return post(2, text)
        }
    )
}

/// Stores whatever it is given; each call fails with a network error when `failing`.
private func modelNotes(failing: Bool) -> NotesClient {
    NotesClient(
        list: { _ throws(AppError) in
            if failing { throw .network(reason: "simulated") }
            return []
        },
        create: { _, note throws(AppError) in
            if failing { throw .network(reason: "simulated") }
            return note
        },
        update: { _, note throws(AppError) in
            if failing { throw .network(reason: "simulated") }
            return note
        },
        delete: { _, _ throws(AppError) in
            if failing { throw .network(reason: "simulated") }
        },
        search: { _, _ throws(AppError) in
            if failing { throw .network(reason: "simulated") }
            return []
        }
    )
}

/// Records, across an exploration, what the invariants saw.
private final class Seen<Element: Hashable & Sendable>: Sendable {
    private let elements = Locked<Set<Element>>([])

    /// Records `element`; always true, to sit among the invariants.
    func record(_ element: Element) -> Bool {
        elements.withLock { _ = $0.insert(element) }
        return true
    }

    var all: Set<Element> { elements.withLock { $0 } }
}

/// The explorations of the suite together must stay well under a minute of CI.
@Suite("Exploration of every reachable state")
struct ExplorationTests {
    // MARK: - Login

    typealias LoginExplorer = Explorer<Login.State, LoginAction>

    /// What the login view model offers in a state: typing while nothing is in flight and no
    /// one is signed in, signing in when the button is enabled (with the auth client working or
    /// failing), acknowledging when an error shows.
    static func viewModelIntents(_ state: Login.State) -> [LoginExplorer.Step] {
        let screen = LoginViewModelScreen(state.status)
        var steps: [LoginExplorer.Step] = []
        if screen.canType {
            steps += [
                .send(.usernameChanged("alice.liddell")), .send(.usernameChanged("alice")),
                .send(.passwordChanged("wonderland")), .send(.passwordChanged("looking-glass")), .send(.passwordChanged("tea")),
            ]
        }
        if screen.isSignInEnabled { steps += [.send(.signInTapped), .failing(.signInTapped)] }
        if screen.showsError { steps.append(.send(.errorAcknowledged)) }
        return steps
    }

    @Test func theLoginMachineReachesEveryPhaseAndTheViewModelNeverMakesAnInvalidTransition() async throws {
        let phases = Seen<String>()
        let report = await LoginExplorer(
            initialState: .finiteStates(LoginMachine.State()),
            reducer: { _, failing in Login(auth: modelAuth(failing: failing)) },
            responses: .asChoices,
            depth: 8,
            steps: Self.viewModelIntents,
            invariants: [
                .state("(records the phase)") { state in
                    guard case .finiteStates(let machine) = state else { return false }
                    return phases.record("\(machine.phase)")
                },
                .state("busy and an error are never shown together") { state in
                    !(state.status.isBusy && state.status.error != nil)
                },
                .state("sign-in is enabled exactly when the credentials are valid and nothing is in flight") { state in
                    let status = state.status
                    let expected =
                        Credentials(username: status.username, password: status.password).isValid
                        && status.error == nil && !status.isBusy && !status.isAuthenticated
                    return status.isSignInEnabled == expected
                },
                .transition("the view model's intents are never rejected") { $0.rejections.isEmpty },
            ]
        ).run()
        #expect(report.violation == nil, "\(report)")
        let expected: Set<String> = [
            "idle", "validatingCredentials", "validCredentials", "authenticating", "authenticated",
            "\(LoginMachine.Phase.failure(.invalidCredentials))", "\(LoginMachine.Phase.failure(.network(reason: "simulated")))",
        ]
        #expect(phases.all == expected, "unreached: \(expected.subtracting(phases.all)); \(report)")
    }

    /// The three styles side by side: one state per style, every intent sent to all three.
    struct Styles: Reducer {
        struct State: Hashable, Sendable {
            var styles = LoginStyle.allCases.map(Login.State.init(style:))
        }

        enum Action: Hashable, Sendable {
            case all(LoginAction)
            case one(Int, LoginAction)
        }

        let auth: AuthClient

        func reduce(into state: inout State, action: Action) -> Effect<Action> {
            switch action {
            case .all(let action):
                return .merge(state.styles.indices.map { reduce(into: &state, action: .one($0, action)) })
            case .one(let index, let action):
                return Login(auth: auth).reduce(into: &state.styles[index], action: action).map { .one(index, $0) }
            }
        }

        static func middleware(auth: AuthClient) -> AnyMiddleware<State, Action> {
            let index = LoginStyle.allCases.firstIndex(of: .middleware) ?? 0
            return AnyMiddleware(
                LoginMiddleware<State, Action>(
                    auth: auth,
                    action: ActionPath(
                        embed: { .one(index, $0) },
                        extract: { if case .one(index, let action) = $0 { action } else { nil } }
                    )))
        }
    }

    @Test func theThreeLoginStylesShowTheSameScreensAfterEverySequenceToDepthSixWithFailures() async throws {
        let intents: [LoginAction] = [
            .usernameChanged("alice.liddell"), .usernameChanged("alice"),
            .passwordChanged("wonderland"), .passwordChanged("looking-glass"),
            .signInTapped, .errorAcknowledged,
        ]
        let outcomes = Seen<String>()
        let report = await Explorer<Styles.State, Styles.Action>(
            initialState: Styles.State(),
            reducer: { _, failing in Styles(auth: modelAuth(failing: failing)) },
            depth: 6,
            steps: { _ in intents.map { .send(.all($0)) } + [.failing(.all(.signInTapped))] },
            // Once each step has settled: on the way, the three responses arrive one by one.
            invariants: [
                .transition("every style shows the same screen") { transition in
                    Set(transition.to.styles.map(\.status)).count == 1
                },
                .state("the shortcut for signed in agrees with the status") { state in
                    state.styles.allSatisfy { $0.isAuthenticated == $0.status.isAuthenticated }
                },
                .transition("(records how sign-ins ended)") { transition in
                    let status = transition.to.styles[0].status
                    return outcomes.record(status.isAuthenticated ? "signed in" : status.error.map { "\($0)" } ?? "signed out")
                },
            ],
            middleware: { _, styles in [Styles.middleware(auth: styles.auth)] }
        ).run()
        #expect(report.violation == nil, "\(report)\n\(report.violation.map { $0.state.styles.map(\.status) } ?? [])")
        // Every sequence to depth 6 was tried; the states ran out before that depth.
        #expect(!report.stoppedByBudget)
        #expect(report.depthReached <= 6)
        let expected: Set<String> = ["signed out", "signed in", "\(AppError.invalidCredentials)", "\(AppError.network(reason: "simulated"))"]
        #expect(outcomes.all == expected, "\(report)")
    }

    // MARK: - Profile and posts

    /// The kind of a profile command or state, for the table's rows and columns.
    static func kind(_ command: Profile.Command) -> String {
        switch command {
        case .load: "load"
        case .loaded: "loaded"
        case .failed: "failed"
        }
    }

    static func kind(_ state: Profile.State) -> String {
        switch state {
        case .initialized: "initialized"
        case .loading: "loading"
        case .loaded: "loaded"
        case .failed: "failed"
        }
    }

    @Test func everyRowOfTheProfileTableIsExercisedAndRejectionsChangeNothing() async throws {
        let pairs = Seen<String>()
        let report = await Explorer<Profile.State, Profile.Command>(
            initialState: .initialized,
            reducer: { _, failing in Profile.reducer(client: modelProfile(failing: failing), token: aliceToken) },
            responses: .asChoices,
            depth: 4,
            // Stray responses too: the table must refuse them where no request is in flight.
            steps: { _ in [.send(.load), .failing(.load), .send(.loaded(alice)), .send(.failed(.network(reason: "stray")))] },
            invariants: [
                .transition("(records the table's cell)") { transition in
                    guard case .send(let command, _) = transition.step else { return true }
                    return pairs.record("\(Self.kind(command)) in \(Self.kind(transition.from))")
                },
                .transition("a rejected command changes nothing") { transition in
                    transition.rejections.isEmpty || transition.to == transition.from
                },
                .transition("a response is accepted exactly while loading") { transition in
                    guard case .send(let command, _) = transition.step, command != .load else { return true }
                    return transition.rejections.isEmpty == (transition.from == .loading)
                },
            ]
        ).run()
        #expect(report.violation == nil, "\(report)")
        let cells = Set(
            ["load", "loaded", "failed"].flatMap { command in
                ["initialized", "loading", "loaded", "failed"].map { "\(command) in \($0)" }
            })
        #expect(pairs.all == cells, "not exercised: \(cells.subtracting(pairs.all))")
    }

    static func kind(_ command: Posts.Command) -> String {
        switch command {
        case .load: "load"
        case .loaded: "loaded"
        case .failed: "failed"
        case .add: "add"
        case .added: "added"
        case .addFailed: "addFailed"
        }
    }

    static func kind(_ state: Posts.State) -> String {
        let phase =
            switch state.phase {
            case .initialized: "initialized"
            case .loading: "loading"
            case .loaded: "loaded"
            case .failed: "failed"
            }
        let draft =
            switch state.draft {
            case nil: "no draft"
            case let draft? where draft.isSending: "draft sending"
            case .some: "draft failed"
            }
        return "\(phase), \(draft)"
    }

    @Test func everyRowOfThePostsTablesIsExercisedAndADraftIsNeverLost() async throws {
        let cells = Seen<String>()
        let report = await Explorer<Posts.State, Posts.Command>(
            initialState: Posts.State(),
            reducer: { _, failing in Posts.reducer(client: modelProfile(failing: failing), token: aliceToken) },
            responses: .asChoices,
            depth: 5,
            steps: { _ in
                [
                    .send(.load), .failing(.load), .send(.add("hello")), .failing(.add("hello")),
                    .send(.loaded([])), .send(.added(post(9, "stray"))), .send(.addFailed(.network(reason: "stray"))),
                ]
            },
            invariants: [
                .transition("(records the table's cell)") { transition in
                    guard case .send(let command, _) = transition.step else { return true }
                    return cells.record("\(Self.kind(command)) in \(Self.kind(transition.from))")
                },
                .transition("a rejected command changes nothing") { transition in
                    transition.rejections.isEmpty || transition.to == transition.from
                },
                .transition("a draft's text stays until the post is published") { transition in
                    // A stray response (sent by the exploration, not by the add) may replace it.
                    if case .send(.added, _) = transition.step { return true }
                    guard let draft = transition.from.draft else { return true }
                    if transition.to.draft?.text == draft.text { return true }
                    guard case .loaded(let posts) = transition.to.phase else { return false }
                    return posts.contains { $0.text == draft.text }
                },
            ]
        ).run()
        #expect(report.violation == nil, "\(report)")
        // The add machine's rows in each of its columns, and loading's rows in each phase.
        let expected: Set<String> = [
            "add in initialized, no draft", "add in loading, no draft", "add in failed, no draft",
            "add in loaded, no draft", "add in loaded, draft failed", "add in loaded, draft sending",
            "added in loaded, draft sending", "added in loaded, no draft",
            "addFailed in loaded, draft sending", "addFailed in loaded, no draft",
            "load in initialized, no draft", "load in loading, no draft", "load in loaded, no draft", "load in failed, no draft",
            "load in loaded, draft sending",
            "loaded in loading, no draft", "loaded in initialized, no draft", "loaded in loaded, no draft",
        ]
        #expect(expected.isSubset(of: cells.all), "not exercised: \(expected.subtracting(cells.all))")
    }

    // MARK: - Notes

    typealias NotesExplorer = Explorer<Notes.State, Notes.Action>

    /// An environment whose new note ids follow the largest in `state`, so that a state means
    /// the same wherever the exploration reaches it.
    static func notesEnvironment(_ state: Notes.State, failing: Bool) -> AppEnvironment {
        let largest = state.items.map { $0.note.id.rawValue.sequence }.max() ?? 0
        return AppEnvironment(
            auth: modelAuth(failing: failing), profile: modelProfile(failing: failing), notes: modelNotes(failing: failing),
            clock: ImmediateClock(), uuid: .constant(UUID(sequence: largest + 1)), now: DateGenerator { fixedDate }
        )
    }

    @Test func aTypedTextIsNeverLostAndANoteIsPendingExactlyWhileItsSaveIsInFlight() async throws {
        let texts = ["milk", "oat milk"]
        let report = await NotesExplorer(
            initialState: Notes.State(),
            reducer: { state, failing in Notes(environment: Self.notesEnvironment(state, failing: failing), token: aliceToken) },
            responses: .asChoices,
            depth: 5,
            steps: { state in
                var steps: [NotesExplorer.Step] = [.send(.addTapped(texts[0])), .failing(.addTapped(texts[0]))]
                if let first = state.items.first {
                    steps += [
                        .send(.edited(first.id, texts[1])), .failing(.edited(first.id, texts[1])),
                        .send(.deleteTapped(first.id)), .failing(.deleteTapped(first.id)),
                    ]
                    if first.isUnsaved { steps.append(.send(.retrySaveTapped(first.id))) }
                }
                return steps
            },
            invariants: [
                .transition("an added or edited text is in the list, saved or marked unsaved, until deleted") { transition in
                    let typed: (id: Note.ID?, text: String)? =
                        switch transition.step.action {
                        case .addTapped(let text): (nil, text)
                        case .edited(let id, let text, _): (id, text)
                        default: nil
                        }
                    guard let typed, transition.rejections.isEmpty else { return true }
                    return transition.to.items.contains { item in
                        item.note.text == typed.text && (typed.id == nil || item.id == typed.id)
                            && (item.save == .saved || item.save == .saving || item.isUnsaved)
                    }
                },
                .transition("a note leaves the list only through a delete") { transition in
                    let gone = Set(transition.from.items.ids).subtracting(transition.to.items.ids)
                    guard !gone.isEmpty else { return true }
                    guard case .deleteResponse(let id, .success) = transition.step.action else { return false }
                    return gone == [id]
                },
                .transition("a note is saving exactly while a save of its text is in flight, deleting while its delete is") { transition in
                    transition.to.items.allSatisfy { item in
                        let saving = transition.inFlight.contains { response in
                            guard case .saveResponse(let id, let revision, _) = response else { return false }
                            return id == item.id && revision == item.revision
                        }
                        let deleting = transition.inFlight.contains { response in
                            guard case .deleteResponse(let id, _) = response else { return false }
                            return id == item.id
                        }
                        return (item.save == .saving) == saving && item.isDeleting == deleting
                    }
                },
            ]
        ).run()
        #expect(report.violation == nil, "\(report)")
        #expect(report.depthReached == 5)
    }
}

/// What the login screen lets the user do, as a view model would show it.
private struct LoginViewModelScreen {
    let canType: Bool
    let isSignInEnabled: Bool
    let showsError: Bool

    init(_ status: LoginStatus) {
        canType = !status.isBusy && !status.isAuthenticated
        isSignInEnabled = status.isSignInEnabled
        showsError = status.error != nil
    }
}
