import AppEnvironment
import Foundation
import Models
import Reducers
import StateStore
import StateStoreTesting
import Testing

// The Swift examples of the library modules' doc comments (their symbol pages) that use the
// app's features and clients, built here and, where they make a claim, run;
// DocumentationExampleTests finds each of them in this file (or its siblings named
// DocCommentExamples.swift), so change a doc comment's example and its copy here together.

// MARK: - The sample app the StateStore examples compose

struct AppState: Equatable, Sendable {
    var counter = Counter.State()
}

/// ActionPath's example (Modules/StateStore/Reducer/ActionPath.swift).
enum AppAction: Sendable {
    case counter(Counter.Action)
    case note(id: Note.ID, action: Notes.Action)

    static let counterPath = ActionPath(embed: AppAction.counter) {
        if case .counter(let action) = $0 { action } else { nil }
    }
    static let notePath = ActionPath(embed: AppAction.note) {
        if case .note(let id, let action) = $0 { (id, action) } else { nil }
    }
}

/// Scope's example (Scope.swift) and CombineReducers' (Reducer.swift).
struct AppReducer: Reducer {
    var body: some Reducer<AppState, AppAction> {
        CombineReducers {
            Scope(state: \.counter, action: AppAction.counterPath) { Counter() }
            Reduce { state, action in .none }
        }
    }

    func reduce(into state: inout AppState, action: AppAction) -> Effect<AppAction> {
        body.reduce(into: &state, action: action)
    }

    static func scopeExample() -> some Reducer<AppState, AppAction> {
        Scope(state: \.counter, action: AppAction.counterPath) {
            Counter()
        }
    }
}

/// The search of Effect's, ManualClock's, StoreTask's and TestStore's examples: a query
/// debounced by `clock`, answered by `search`.
struct Search: Reducer {
    struct State: Equatable, Sendable {
        var query = ""
        var results: [String] = []
        var error: String?
    }

    enum Action: Equatable, Sendable {
        case queryChanged(String)
        case searchResponse([String])
        case searchFailed(String)
    }

    struct SearchID: Hashable, Sendable {}

    let clock: any Clock<Duration>
    var search: @Sendable (String) async throws -> [String] = { query in ["milk", "oat milk"].filter { $0.hasPrefix(query) } }

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .queryChanged(let query):
            state.query = query
            return .run { send in
                let results = try await search(query)
                send(.searchResponse(results))
            } catch: { error, send in
                send(.searchFailed("\(error)"))
            }
            .debounce(id: SearchID(), for: .milliseconds(300), clock: clock)
        case .searchResponse(let results):
            state.results = results
            return .none
        case .searchFailed(let message):
            state.error = message
            return .none
        }
    }
}

/// Middleware's example (Middleware.swift).
struct SignInMiddleware: Middleware {
    let auth: AuthClient

    func handle(_ action: LoginAction, context: MiddlewareContext<Login.State, LoginAction>) -> MiddlewareStep<LoginAction> {
        guard case .login(let credentials) = action else { return .next(action) }
        return .deferred {
            do throws(AppError) { return .setAccessToken(try await auth.authenticate(credentials)) } catch { return .loginFailed(error) }
        }
    }
}

/// The Explorer's example's client: signs in "ada" with "correct-horse", or fails every call.
func testAuth(failing: Bool) -> AuthClient {
    AuthClient(
        signUp: { _ throws(AppError) in throw .network(reason: "not modelled") },
        authenticate: { credentials throws(AppError) in
            if failing { throw .network(reason: "simulated") }
            guard credentials.username == "ada" else { throw .invalidCredentials }
            return AuthSession(user: User(id: User.ID(UUID(sequence: 1)), username: "ada"), token: AccessToken("token"))
        },
        signOut: { _ in }
    )
}

/// AsyncReducer's example (AsyncReducer.swift).
struct SignInReducer: AsyncReducer {
    enum State: Equatable, Sendable { case signedOut, signedIn(AuthSession), failed(AppError) }
    enum Action: Sendable { case signIn(Credentials), signOut }

    let auth: AuthClient

    func reduce(_ state: State, _ action: Action) async -> State {
        switch action {
        case .signIn(let credentials):
            do throws(AppError) { return .signedIn(try await auth.authenticate(credentials)) } catch { return .failed(error) }
        case .signOut:
            return .signedOut
        }
    }
}

/// Transducer's example (Transducer.swift).
enum ProfileMachine: Transducer {
    enum State: Equatable, Sendable { case initialized, loading, loaded(User), failed(String) }
    enum Command: Equatable, Sendable { case load, loaded(User), failed(String) }
    enum Effect: Equatable, Sendable { case load }

    static func reduce(_ state: State, _ command: Command) -> Transition<State, Effect> {
        switch (state, command) {
        case (.initialized, .load), (.loaded, .load), (.failed, .load): .to(.loading, effect: .load)
        case (.loading, .load): .to(.loading)
        case (.loading, .loaded(let user)): .to(.loaded(user))
        case (.loading, .failed(let message)): .to(.failed(message))
        case (_, .loaded), (_, .failed): .rejected("no request is in flight")
        }
    }
}

struct Summary: Equatable, Sendable {
    let count: Int
}

/// TestStore's example; ManualClock's is its first five lines.
@Test func search() async {
    let clock = TestClock()
    let store = TestStore(initialState: Search.State(), reducer: Search(clock: clock))
    await store.send(.queryChanged("mi")) { $0.query = "mi" }
    await clock.advance(by: .milliseconds(300))
    await store.receive(.searchResponse(["milk"])) { $0.results = ["milk"] }
    await store.finish()
}

@Suite("Doc comments' examples: StateStore with the app's features")
struct DocCommentExampleTests {
    /// TerminalText's example (Modules/StateStore/Debugging/TerminalText.swift).
    @Test func terminalText() {
        print(TerminalText.visible("milk\u{1B}]0;pwned\u{07}")) // milk\e]0;pwned\u{7}
        #expect(TerminalText.visible("milk\u{1B}]0;pwned\u{07}") == #"milk\e]0;pwned\u{7}"#)
    }

    @Test func scopingTheAppStore() {
        let appStore = RootStore(initialState: AppState(), reducer: AppReducer())
        let counter = appStore.scope(state: \.counter, action: AppAction.counter)
        counter.send(.incrementTapped)
        #expect(appStore.currentState.counter.count == 1)
        do {
            let counter = appStore.scope(state: \.counter, action: AppAction.counterPath)
            counter.send(.incrementTapped)
            #expect(counter.currentState.count == 2)
        }
        let summary = appStore.scope(deriving: { Summary(count: $0.counter.count) }, action: { $0 })
        #expect(summary.currentState == Summary(count: 2))
        var state = AppState()
        _ = AppReducer.scopeExample().reduce(into: &state, action: .counter(.incrementTapped))
        #expect(state.counter.count == 1)
    }

    @Test func aStoreTaskFinishesOrCancelsTheWorkOfItsSend() async {
        // Debouncing on a clock that never waits; a search for "oat" runs until it is cancelled.
        var feature = Search(clock: ImmediateClock())
        feature.search = { query in
            if query == "oat" { try await Task.sleep(for: .seconds(3600)) }
            return ["milk"]
        }
        let store = RootStore(initialState: Search.State(), reducer: feature)
        await store.send(.queryChanged("milk")).finish() // the search's effects are done
        let search = store.send(.queryChanged("oat"))
        search.cancel() // stop the search it started
        #expect(await store.waitForEffects(timeout: .seconds(60)), "nothing runs on")
        #expect(store.currentState.results == ["milk"] && store.currentState.error == nil, "what a cancelled search sends is dropped")
    }

    @Test func anAsyncReducerSignsIn() async {
        let credentials = Credentials(username: "ada", password: "correct-horse")
        let store = RootStore(initialState: SignInReducer.State.signedOut, asyncReducer: SignInReducer(auth: testAuth(failing: false)))
        await store.send(.signIn(credentials)).finish()
        #expect(store.currentState == .signedIn(AuthSession(user: User(id: User.ID(UUID(sequence: 1)), username: "ada"), token: AccessToken("token"))))
    }

    @Test func aTransducerLoadsThroughItsInteractor() async {
        let ada = User(id: User.ID(UUID(sequence: 1)), username: "ada")
        let profileInteractor = Interactor<ProfileMachine.Effect, ProfileMachine.Command>(respond: { _ in .loaded(ada) })
        let store = RootStore(
            initialState: .initialized,
            reducer: TransducerReducer(ProfileMachine.self, interactor: profileInteractor))
        await store.send(.load).finish()
        #expect(store.currentState == .loaded(ada))
    }

    @Test func identifiedArrayReachesAnElementByItsID() {
        let milk = Note(id: Note.ID(UUID(sequence: 1)), text: "milk", createdAt: .distantPast)
        var notes: IdentifiedArray<Note> = []
        notes.append(milk)
        notes[id: milk.id]?.text = "oat milk"
        #expect(notes.map(\.text) == ["oat milk"])
    }

    @Test func theExplorersExampleFindsNoViolation() async {
        let report = await Explorer(
            initialState: LoginMachine.State(),
            reducer: { _, failing in LoginMachine.reducer(auth: testAuth(failing: failing)) }, // the test's client
            responses: .asChoices,
            depth: 6,
            steps: { _ in [.send(.usernameChanged("ada")), .send(.passwordChanged("correct-horse")), .send(.signInTapped)] },
            invariants: [.state("never busy and failed at once") { !($0.status.isBusy && $0.status.error != nil) }]
        ).run()
        #expect(report.violation == nil, "\(report)")
    }

    @Test func aFailingEnvironmentAnswersWhatTheTestSet() async throws {
        let clock = TestClock()
        let note = Note(id: Note.ID(UUID(sequence: 1)), text: "milk", createdAt: .distantPast)
        var environment = AppEnvironment.failing(clock: clock)
        environment.notes.list = { _ in [note] }
        #expect(try await environment.notes.list(AccessToken("token")) == [note])
    }

    @Test func aRendererRedactsSecrets() {
        let line = ValueRenderer.oneLine(LoginAction.passwordChanged("hunter22")) // "LoginAction.passwordChanged(<redacted>)"
        #expect(line == "LoginAction.passwordChanged(<redacted>)")
    }
}

// MARK: - Examples only built (they would report, block or run forever in a test)

func failingAuthReportsToTheTest() -> AuthClient {
    let auth = AuthClient.failing(UnexpectedCallReporter { Issue.record(Comment(rawValue: $0)) })
    return auth
}

func injectingFailures() {
    let failures = FailureInjector()
    let environment = AppEnvironment.inMemory().injectingFailures(failures)
    failures.failNext(.notesCreate) // the next create fails with a network error
    _ = environment
}

func listingNotes(notes: NotesClient, token: AccessToken) -> Effect<Notes.Action> {
    return .run { send in
        send(.listResponse(await Outcome { () throws(AppError) in try await notes.list(token) }))
    }
}

func addingANote(_ action: Notes.Action, uuid: UUIDGenerator, now: DateGenerator) -> Effect<Notes.Action> {
    switch action {
    case .addTapped(let text):
        return .send { .inserted(Note(id: Note.ID(uuid()), text: text, createdAt: now())) }
    default:
        return .none
    }
}

func anAppStoreWithTheLoginMiddleware() {
    let environment = AppEnvironment.inMemory()
    let store = RootStore(
        initialState: AppFeature.State(loginStyle: .middleware),
        reducer: AppFeature(environment: environment)
    ) {
        AppFeature.loginMiddleware(environment)
    }
    _ = store
}

func theLoginMiddlewareOnItsOwn(env: AppEnvironment) {
    let store = RootStore(initialState: AppFeature.State(loginStyle: .middleware), reducer: AppFeature(environment: env)) {
        LoginMiddleware(auth: env.auth, action: AppFeature.Action.loginPath)
    }
    _ = store
}

func middlewareBuilt(
    verbose: Bool, gates: [AnyMiddleware<AppFeature.State, AppFeature.Action>], optionalAnalytics: AnyMiddleware<AppFeature.State, AppFeature.Action>?
) {
    let environment = AppEnvironment.inMemory()
    let store = RootStore(initialState: AppFeature.State(), reducer: AppFeature(environment: environment)) {
        if verbose { LoggingMiddleware(sink: .standardError) }
        for gate in gates { gate }
        optionalAnalytics // an `AnyMiddleware?`
        AppFeature.loginMiddleware(environment)
    }
    _ = store
}

func aRootStoreWithMiddleware() {
    let store = RootStore(initialState: AppFeature.State(), reducer: AppFeature(environment: .inMemory())) {
        LoggingMiddleware(sink: .standardError)
    }
    _ = store
}

func loginStyles(auth: AuthClient) -> some Reducer<Login.State, LoginAction> {
    EmptyReducer()
        .ifCaseLet(Login.State.finiteStatesCase, action: .identity) { LoginMachine.reducer(auth: auth) }
}

func signingIn(store: RootStore<AppFeature.State, AppFeature.Action>) async {
    let signIn = store.send(.login(.signInTapped))
    guard await signIn.settle(timeout: .seconds(10)) else { return } // notes loaded too
}

/// `CasePath(embed:extract:matches:modify:)`'s example, the path the app's own signed-in case
/// is, checked to change the user's part in place and to leave another case alone.
enum CasePathModifyExample {
    typealias Account = AppFeature.Account

    static let signedInCase = CasePath<Account, SignedIn.State>(embed: Account.signedIn) {
        if case .signedIn(let user) = $0 { user } else { nil }
    } matches: {
        if case .signedIn = $0 { true } else { false }
    } modify: { account, body in
        switch consume account {
        case .signedIn(var user):
            body(&user)
            account = .signedIn(user)
        case let other: account = other
        }
    }
}

@Test func aCasePathModifiesItsCaseInPlaceAndLeavesAnotherAlone() throws {
    var account = AppFeature.Account.signedIn(SignedIn.State(session: aliceSession))
    let modify = try #require(CasePathModifyExample.signedInCase.modify)
    modify(&account) { $0.notes.searchQuery = "milk" }
    #expect(CasePathModifyExample.signedInCase.extract(account)?.notes.searchQuery == "milk")
    var signedOut = AppFeature.Account.signedOut(Login.State(style: .adHoc))
    modify(&signedOut) { _ in Issue.record("ran on another case") }
    #expect(signedOut == .signedOut(Login.State(style: .adHoc)))
}
