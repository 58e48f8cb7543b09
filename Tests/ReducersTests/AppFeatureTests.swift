import AppEnvironment
import Foundation
import Models
import Reducers
import StateStore
import StateStoreTesting
import TestSupport
import Testing

@Suite("App")
struct AppFeatureTests {
    static let profilePosts = [post(1, "hello")]
    static let storedNotes = [note(7, "milk")]
    static let storedCursor = NotesCursor(position: 3)

    /// An environment where signing in as Alice and loading her data work.
    static func signedInEnvironment(clock: TestClock = TestClock()) -> AppEnvironment {
        var environment = failingEnvironment(clock: clock)
        environment.auth.authenticate = { _ in aliceSession }
        environment.profile.load = { _ in alice }
        environment.profile.loadPosts = { _ in profilePosts }
        environment.notes.list = { _ in storedNotes }
        environment.notes.changes = { _, _ in NoteChanges(cursor: storedCursor) }
        return environment
    }

    static func validLogin(_ style: LoginStyle) -> Login.State {
        switch style {
        case .finiteStates: .finiteStates(.init(phase: .validCredentials, username: goodCredentials.username, password: goodCredentials.password))
        case .adHoc: .adHoc(.init(username: goodCredentials.username, password: goodCredentials.password))
        case .middleware: .middleware(.init(username: goodCredentials.username, password: goodCredentials.password))
        }
    }

    @Test func userFeaturesNeedASessionButTheCounterDoesNot() async {
        let store = TestStore(initialState: AppFeature.State(), reducer: AppFeature(environment: failingEnvironment()))
        for action in [AppFeature.Action.profile(.load), .posts(.add("hi")), .notes(.addTapped("milk")), .notes(.listRequested)] {
            await store.send(action)
            await store.expectDiagnostic(.missingChild, containing: "Sign in first")
        }
        await store.send(.counter(.incrementTapped)) { $0.counter.count = 1 }
        await store.finish()
    }

    /// Signed in, the sign-in screen is not there to type into: its actions are refused saying
    /// why, and "signed in" is one fact, read the same by every screen.
    @Test(arguments: LoginStyle.allCases)
    func signInScreenActionsWhileSignedInAreRefused(style: LoginStyle) async {
        var initial = AppFeature.State(loginStyle: style)
        initial.user = SignedIn.State(session: aliceSession, loginStyle: style)
        let store = TestStore(initialState: initial, reducer: AppFeature(environment: failingEnvironment()))
        for action in [LoginAction.usernameChanged("bob.builder"), .passwordChanged("canwefixit"), .signInTapped, .setAccessToken(aliceSession)] {
            await store.send(.login(action))
            await store.expectDiagnostic(.missingChild, containing: "sign out first")
        }
        #expect(store.state.isSignedIn && store.state.loginStatus.isAuthenticated && store.state.signedInUser == alice)
        #expect(store.state.loginStatus.username == alice.username && store.state.loginStyle == style)
        await store.finish()
    }

    @Test func signingInLoadsTheProfileThePostsAndTheNotes() async {
        var initial = AppFeature.State()
        initial.account = .signedOut(Self.validLogin(.finiteStates))
        let store = TestStore(initialState: initial, reducer: AppFeature(environment: Self.signedInEnvironment()))
        await store.send(.login(.signInTapped)) {
            $0.account = .signedOut(Self.aliceAuthenticating)
        }
        await store.receive(.login(.authenticationResponse(.success(aliceSession)))) {
            $0.account = .signedIn(SignedIn.State(session: aliceSession, loginStyle: .finiteStates))
        }
        await store.receive(.profile(.load)) { $0.user?.profile = .loading }
        await store.receive(.posts(.load)) { $0.user?.posts.phase = .loading }
        await store.receive(.notes(.listRequested)) { $0.user?.notes.list = .loading }
        await store.receive(.profile(.loaded(alice))) { $0.user?.profile = .loaded(alice) }
        await store.receive(.posts(.loaded(Self.profilePosts))) { $0.user?.posts.phase = .loaded(Self.profilePosts) }
        await store.receive(.notes(.followingChanges(from: Self.storedCursor))) { $0.user?.notes.changeCursor = Self.storedCursor }
        await store.receive(.notes(.pageResponse(query: "", after: nil, .success(NotePage(notes: Self.storedNotes, total: 1))))) {
            $0.user?.notes.list = .loaded
            $0.user?.notes.items = [Notes.Item(note: Self.storedNotes[0])]
            $0.user?.notes.listTotal = 1
        }
        await store.finish()
    }

    @Test func theMiddlewareStyleSignsInThroughTheAppsPipeline() async {
        let environment = Self.signedInEnvironment()
        var initial = AppFeature.State(loginStyle: .middleware)
        initial.account = .signedOut(Self.validLogin(.middleware))
        let store = TestStore(initialState: initial, reducer: AppFeature(environment: environment)) {
            AppFeature.loginMiddleware(environment)
        }
        await store.send(.login(.signInTapped)) {
            $0.account = .signedOut(.middleware(.init(username: "alice.liddell", password: "wonderland", isLoggingIn: true)))
        }
        await store.receive(.login(.setAccessToken(aliceSession))) {
            $0.account = .signedIn(SignedIn.State(session: aliceSession, loginStyle: .middleware))
        }
        await store.receive(.profile(.load)) { $0.user?.profile = .loading }
        await store.receive(.posts(.load)) { $0.user?.posts.phase = .loading }
        await store.receive(.notes(.listRequested)) { $0.user?.notes.list = .loading }
        store.exhaustivity = .off
        await store.receive(.notes(.pageResponse(query: "", after: nil, .success(NotePage(notes: Self.storedNotes, total: 1)))))
        #expect(store.state.profile == .loaded(alice))
        await store.finish()
    }

    @Test func signingOutResetsTheUsersFeaturesAndCancelsTheirRequests() async {
        let clock = TestClock()
        var environment = failingEnvironment(clock: clock)
        environment.profile.load = { _ throws(AppError) in
            do { try await clock.sleep(for: .seconds(10)) } catch { throw .cancelled }
            Issue.record("the profile request should have been cancelled")
            return alice
        }
        environment.auth.signOut = { _ in }
        var initial = AppFeature.State()
        initial.counter.count = 3
        initial.user = SignedIn.State(session: aliceSession)
        initial.user?.notes.items = [Notes.Item(note: note(7, "milk"))]
        let store = TestStore(initialState: initial, reducer: AppFeature(environment: environment))
        await store.send(.profile(.load)) { $0.user?.profile = .loading }
        #expect(await clock.untilSleeping())
        await store.send(.session(.signOutTapped)) {
            $0.account = .signedOut(.finiteStates(.init()))
        }
        await store.receive(.session(.signOutResponse(.success(Done()))))
        await clock.advance(by: .seconds(10))
        await store.finish()
        #expect(store.state.counter.count == 3, "the counter belongs to no one")
    }

    /// A journal restores a session without its token (tokens are never saved): the restart ends
    /// it, keeps the username for the next sign in, and signing in again brings everything back.
    @Test(arguments: LoginStyle.allCases)
    func aSessionRestoredWithoutItsTokenEndsAndSigningInAgainWorks(style: LoginStyle) async {
        var restored = AppFeature.State(loginStyle: style)
        restored.user = SignedIn.State(session: AuthSession(user: alice, token: AccessToken("")), loginStyle: style, profile: .loaded(alice))
        restored.user?.notes.items = [Notes.Item(note: note(7, "milk"))]
        restored.counter.count = 2
        let environment = Self.signedInEnvironment()
        let store = RootStore(initialState: restored, reducer: AppFeature(environment: environment)) {
            AppFeature.loginMiddleware(environment)
        }
        store.send(.session(.restored))
        var state = store.currentState
        #expect(state.session == Session.State(error: .sessionExpired))
        #expect(state.loginStyle == style)
        #expect(state.loginStatus.username == alice.username)
        #expect(!state.loginStatus.isAuthenticated && !state.isSignedIn)
        #expect(state.profile == .initialized && state.notes == Notes.State() && state.posts == Posts.State())
        #expect(state.counter.count == 2)

        store.send(.login(.passwordChanged(goodCredentials.password)))
        await store.send(.login(.signInTapped)).finish()
        await store.waitForEffects()
        state = store.currentState
        #expect(state.user?.session == aliceSession)
        #expect(state.session.error == nil)
        #expect(state.notes.items.map(\.note) == Self.storedNotes)
    }

    /// A restart ends the session; the text it had not stored yet waits for its owner's next
    /// sign in, and comes back unsaved, to retry, beside the notes loaded.
    @Test func aRestartKeepsTheUnsavedTextForItsOwnersNextSignIn() async {
        var restored = AppFeature.State(loginStyle: .finiteStates)
        restored.user = SignedIn.State(session: AuthSession(user: alice, token: AccessToken("")), loginStyle: .finiteStates)
        let typed = Notes.Item(note: note(9, "typed, not stored", updated: 9), save: .saving, isStored: false, revision: 1)
        let failed = Notes.Item(note: note(8, "edited, failed", updated: 8), save: .failed(.network(reason: "offline")), revision: 2)
        restored.user?.notes.items = [typed, failed, Notes.Item(note: note(7, "milk"))]
        let environment = Self.signedInEnvironment()
        let store = RootStore(initialState: restored, reducer: AppFeature(environment: environment)) {
            AppFeature.loginMiddleware(environment)
        }
        store.send(.session(.restored))
        var kept = typed
        kept.save = .failed(.cancelled)
        #expect(store.currentState.session.unsavedNotes == Session.UnsavedNotes(owner: alice.id, items: [kept, failed]))
        store.send(.login(.passwordChanged(goodCredentials.password)))
        await store.send(.login(.signInTapped)).finish()
        await store.waitForEffects()
        let notes = store.currentState.notes
        #expect(notes.items.map(\.note.text) == ["typed, not stored", "edited, failed", "milk"])
        let unsaved = notes.items.filter { $0.isUnsaved }.map(\.note.text)
        #expect(unsaved == ["typed, not stored", "edited, failed"])
        #expect(store.currentState.session.unsavedNotes == nil)
    }

    /// The finite-state sign-in screen while Alice's sign in runs.
    static let aliceAuthenticating = Login.State.finiteStates(.init(phase: .authenticating, username: "alice.liddell", password: "wonderland"))

    /// Receives Alice's sign in opening her part (the sign up's status cleared), then lets the
    /// loads it starts finish unchecked.
    static func finishSigningInAsAlice(_ store: TestStore<AppFeature.State, AppFeature.Action>) async {
        await store.receive(.login(.authenticationResponse(.success(aliceSession)))) {
            $0.account = .signedIn(SignedIn.State(session: aliceSession, loginStyle: .finiteStates))
            $0.session.signUp = .idle
        }
        store.exhaustivity = .off
        await store.finish()
    }

    /// Signing in right after signing up (a fast typist, a front end that does not wait) signs
    /// in to the new account: the sign in waits for the sign up of its username, where it used
    /// to fail for an account not made yet.
    @Test func aSignInAskedForWhileItsAccountIsBeingMadeStartsWhenItIsMade() async {
        let clock = TestClock()
        var environment = Self.signedInEnvironment(clock: clock)
        let made = Locked(false)
        environment.auth.signUp = { _ throws(AppError) in
            do { try await clock.sleep(for: .seconds(1)) } catch { throw .cancelled }
            made.withLock { $0 = true }
            return alice
        }
        environment.auth.authenticate = { _ throws(AppError) in
            guard made.withLock({ $0 }) else { throw .invalidCredentials }
            return aliceSession
        }
        var initial = AppFeature.State()
        initial.account = .signedOut(Self.validLogin(.finiteStates))
        let store = TestStore(initialState: initial, reducer: AppFeature(environment: environment))
        await store.send(.session(.signUpTapped(goodCredentials))) { $0.session.signUp = .inProgress(goodCredentials.username) }
        #expect(await clock.untilSleeping())
        await store.send(.login(.signInTapped)) { $0.session.signInAwaitsSignUp = true }
        await clock.advance(by: .seconds(1))
        await store.receive(.session(.signUpResponse(.success(alice)))) {
            $0.session.signUp = .succeeded(alice)
            $0.session.signInAwaitsSignUp = false
            $0.account = .signedOut(Self.aliceAuthenticating)
        }
        await Self.finishSigningInAsAlice(store)
        #expect(store.state.isSignedIn && store.state.session.error == nil)
    }

    /// The same through every login style, on the in-memory backend (the account exists only
    /// once the sign up returns), with a sign up that found the username taken as well: the held
    /// sign in still runs, since the account may be the user's own.
    @Test(arguments: LoginStyle.allCases, [false, true])
    func everyStyleSignsInToAnAccountWhoseSignUpWasRunning(style: LoginStyle, taken: Bool) async throws {
        let backend = InMemoryBackend()
        if taken { _ = try backend.signUp(goodCredentials) }
        var environment = AppEnvironment.inMemory(backend: backend)
        let (opened, open) = AsyncStream<Void>.makeStream()
        let signUp = environment.auth.signUp
        environment.auth.signUp = { credentials throws(AppError) in
            for await _ in opened { break }
            return try await signUp(credentials)
        }
        var initial = AppFeature.State(loginStyle: style)
        initial.account = .signedOut(Self.validLogin(style))
        let store = RootStore(initialState: initial, reducer: AppFeature(environment: environment)) {
            AppFeature.loginMiddleware(environment)
        }
        store.send(.session(.signUpTapped(goodCredentials)))
        store.send(.login(.signInTapped))
        #expect(store.currentState.session.signInAwaitsSignUp)
        #expect(!store.currentState.loginStatus.isBusy)
        open.yield()
        await store.waitForEffects()
        let state = store.currentState
        #expect(state.user?.username == goodCredentials.username)
        #expect(state.loginStatus.error == nil && !state.session.signInAwaitsSignUp)
    }

    /// An action for the user's part while a sign in runs is refused saying that it runs, not
    /// that nobody is signed in (a REPL user who typed it right after login.submit).
    @Test func anActionForTheUsersPartWhileASignInRunsSaysToWait() async {
        var initial = AppFeature.State()
        initial.account = .signedOut(Self.aliceAuthenticating)
        let store = TestStore(initialState: initial, reducer: AppFeature(environment: failingEnvironment()))
        await store.send(.notes(.addTapped("milk")))
        await store.expectDiagnostic(.missingChild, containing: "A sign in is in progress. Wait until it ends")
        await store.send(.login(.usernameChanged("bob.builder")))
        await store.expectDiagnostic(.invalidTransition, containing: "wait until the sign in in progress finishes")
    }

    /// Only the sign in of the username being signed up waits: another one starts at once.
    @Test func aSignInForAnotherUsernameDoesNotWaitForASignUp() async {
        var initial = AppFeature.State()
        initial.account = .signedOut(Self.validLogin(.finiteStates))
        initial.session.signUp = .inProgress("bob.builder")
        let store = TestStore(initialState: initial, reducer: AppFeature(environment: Self.signedInEnvironment()))
        await store.send(.login(.signInTapped)) {
            $0.account = .signedOut(Self.aliceAuthenticating)
        }
        await Self.finishSigningInAsAlice(store)
    }

    @Test func aRestoredSessionThatKeptItsTokenAndASignedOutAppAreLeftAsTheyAre() async {
        var signedIn = AppFeature.State()
        signedIn.user = SignedIn.State(session: aliceSession)
        let store = TestStore(initialState: signedIn, reducer: AppFeature(environment: failingEnvironment()))
        await store.send(.session(.restored))
        let signedOut = TestStore(initialState: AppFeature.State(), reducer: AppFeature(environment: failingEnvironment()))
        await signedOut.send(.session(.restored))
    }

    /// A journal written while a sign up and a sign in were in flight (the process died, or it
    /// still runs elsewhere): after a restore nothing waits for them, and the typed username stays.
    @Test func workInFlightWhenTheJournalWasWrittenIsNotLeftWaiting() async {
        var restored = AppFeature.State()
        restored.session.signUp = .inProgress("bob.builder")
        restored.session.signInAwaitsSignUp = true
        restored.account = .signedOut(.finiteStates(.init(phase: .authenticating, username: "alice.liddell")))
        let store = TestStore(initialState: restored, reducer: AppFeature(environment: failingEnvironment()))
        await store.send(.session(.restored)) {
            $0.session.signUp = .idle
            $0.session.signInAwaitsSignUp = false
            $0.account = .signedOut(.finiteStates(.init(phase: .validatingCredentials, username: "alice.liddell")))
        }
        #expect(!store.state.loginStatus.isBusy)
    }

    /// Time is an input: a session ends when the host says its clock passed the expiry, the
    /// same at every path to the action (a test clock moved, real time, a journal replayed).
    @Test func aSessionEndsWhenTheTimeItExpiresAtPassesAndNotBefore() async {
        let expiry = Date(timeIntervalSince1970: 1_800_000_060)
        var state = AppFeature.State(loginStyle: .adHoc)
        state.user = SignedIn.State(session: AuthSession(user: alice, token: aliceToken, expiresAt: expiry), loginStyle: .adHoc)
        let unsaved = Notes.Item(note: note(9, "typed, not stored"), save: .saving, isStored: false, revision: 1)
        state.user?.notes.items = [unsaved, Notes.Item(note: note(7, "milk"))]
        #expect(state.nextTimeChange == expiry)
        let store = RootStore(initialState: state, reducer: AppFeature(environment: Self.signedInEnvironment()))

        store.send(.session(.timePassed(expiry.addingTimeInterval(-1))))
        #expect(store.currentState.isSignedIn, "a second before its expiry the session stands")

        store.send(.session(.timePassed(expiry)))
        let ended = store.currentState
        #expect(!ended.isSignedIn)
        #expect(ended.session.error == .sessionExpired)
        #expect(ended.loginStyle == .adHoc && ended.loginStatus.username == alice.username, "the username stays typed")
        var kept = unsaved
        kept.save = .failed(.cancelled)
        #expect(ended.session.unsavedNotes == Session.UnsavedNotes(owner: alice.id, items: [kept]), "unsaved text waits for the next sign in")
        #expect(ended.nextTimeChange == nil, "nothing waits on the clock while signed out")

        store.send(.session(.timePassed(expiry.addingTimeInterval(3600))))
        #expect(store.currentState == ended, "later times change nothing more")
    }
}

/// Every client endpoint failing, driven through the whole app on the in-memory clients: the
/// failure shows in the state, and nothing typed is lost.
@Suite("App failure paths")
struct AppFailurePathTests {
    @Test(arguments: Endpoint.allCases)
    func aFailingEndpointIsShown(endpoint: Endpoint) async throws {
        let backend = InMemoryBackend()
        _ = try backend.signUp(goodCredentials)
        let failures = FailureInjector()
        let environment = AppEnvironment.inMemory(backend: backend).injectingFailures(failures)
        let log = DiagnosticLog()
        let store = RootStore(
            initialState: AppFeature.State(), reducer: AppFeature(environment: environment),
            diagnostics: .collecting(into: log))
        func send(_ action: AppFeature.Action) async {
            await store.send(action).finish()
            await store.waitForEffects()
        }
        let simulated = AppError.network(reason: "simulated failure of \(endpoint)")
        let signsInFirst = endpoint != .authSignUp && endpoint != .authAuthenticate
        if signsInFirst {
            await send(.login(.usernameChanged(goodCredentials.username)))
            await send(.login(.passwordChanged(goodCredentials.password)))
            if endpoint == .profileLoad || endpoint == .profileLoadPosts || endpoint == .notesList {
                failures.failNext(endpoint)
            }
            await send(.login(.signInTapped))
            #expect(store.currentState.isSignedIn)
        } else {
            failures.failNext(endpoint)
        }
        switch endpoint {
        case .authSignUp:
            await send(.session(.signUpTapped(Credentials(username: "bob.builder", password: "canwefixit"))))
            #expect(store.currentState.session.signUp == .failed(simulated))
        case .authAuthenticate:
            await send(.login(.usernameChanged(goodCredentials.username)))
            await send(.login(.passwordChanged(goodCredentials.password)))
            await send(.login(.signInTapped))
            #expect(store.currentState.loginStatus.error == simulated)
            #expect(store.currentState.loginStatus.password == goodCredentials.password, "the password typed is kept")
            #expect(!store.currentState.isSignedIn)
        case .authSignOut:
            failures.failNext(endpoint)
            await send(.session(.signOutTapped))
            #expect(!store.currentState.isSignedIn, "signing out locally always works")
            #expect(store.currentState.session.error == simulated)
        case .profileLoad:
            #expect(store.currentState.profile == .failed(simulated))
        case .profileLoadPosts:
            #expect(store.currentState.posts.phase == .failed(simulated))
        case .profileAddPost:
            failures.failNext(endpoint)
            await send(.posts(.add("my first post")))
            #expect(store.currentState.posts.draft == Posts.Draft(text: "my first post", error: simulated))
        case .notesList:
            #expect(store.currentState.notes.list == .failed(simulated))
            #expect(store.currentState.notes.error == simulated)
        case .notesCreate:
            failures.failNext(endpoint)
            await send(.notes(.addTapped("buy milk")))
            let state = store.currentState
            #expect(state.notes.items.first?.note.text == "buy milk")
            #expect(state.notes.items.first?.save == .failed(simulated))
        case .notesUpdate:
            await send(.notes(.addTapped("buy milk")))
            let id = try #require(store.currentState.notes.items.first?.id)
            failures.failNext(endpoint)
            await send(.notes(.edited(id, "buy oat milk")))
            #expect(store.currentState.notes.items.first?.note.text == "buy oat milk")
            #expect(store.currentState.notes.items.first?.save == .failed(simulated))
        case .notesDelete:
            await send(.notes(.addTapped("buy milk")))
            let id = try #require(store.currentState.notes.items.first?.id)
            failures.failNext(endpoint)
            await send(.notes(.deleteTapped(id)))
            #expect(store.currentState.notes.items.first?.note.text == "buy milk")
            #expect(store.currentState.notes.error == simulated)
        case .notesSearch:
            failures.failNext(endpoint)
            await send(.notes(.searchQueryChanged("milk")))
            #expect(store.currentState.notes.error == simulated)
        case .notesChanges:
            failures.failNext(endpoint)
            await send(.notes(.externalChangesNoticed))
            #expect(store.currentState.notes.error == simulated)
            #expect(store.currentState.notes.list == .loaded, "the list stays as it was")
        }
        #expect(failures.pendingFailures(of: endpoint) == 0, "the endpoint was called")
        // The failure is reported once, as a failure of the work that met it, in the user's words.
        #expect(log.entries.map(\.kind) == [.failure], "\(log.entries)")
        #expect(log.entries.first?.reason == simulated.message)
    }
}
