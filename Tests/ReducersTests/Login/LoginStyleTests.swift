import AppEnvironment
import Models
import Reducers
import StateStore
import StateStoreTesting
import TestSupport
import Testing

/// Each style's effects, asserted exhaustively with a test store.
@Suite("Login styles")
struct LoginStyleTests {
    static func auth(answer: Outcome<AuthSession>) -> AuthClient {
        var auth = AuthClient.failing(unexpectedCall)
        auth.authenticate = { credentials throws(AppError) in
            #expect(credentials == goodCredentials)
            return try answer.result.get()
        }
        return auth
    }

    @Test func finiteStatesSignIn() async {
        let store = TestStore(
            initialState: Login.State(style: .finiteStates),
            reducer: Login(auth: Self.auth(answer: .success(aliceSession))))
        await store.send(.usernameChanged("alice.liddell")) {
            $0 = .finiteStates(.init(phase: .validatingCredentials, username: "alice.liddell"))
        }
        await store.send(.passwordChanged("wonderland")) {
            $0 = .finiteStates(.init(phase: .validCredentials, username: "alice.liddell", password: "wonderland"))
        }
        await store.send(.signInTapped) {
            $0 = .finiteStates(.init(phase: .authenticating, username: "alice.liddell", password: "wonderland"))
        }
        await store.receive(.authenticationResponse(.success(aliceSession))) {
            $0 = .finiteStates(.init(phase: .authenticated, username: "alice.liddell"))
        }
        await store.finish()
    }

    @Test func finiteStatesFailureIsShownUntilAcknowledged() async {
        let store = TestStore(
            initialState: Login.State.finiteStates(.init(phase: .validCredentials, username: "alice.liddell", password: "wonderland")),
            reducer: Login(auth: Self.auth(answer: .failure(.invalidCredentials))))
        await store.send(.signInTapped) {
            $0 = .finiteStates(.init(phase: .authenticating, username: "alice.liddell", password: "wonderland"))
        }
        await store.receive(.authenticationResponse(.failure(.invalidCredentials))) {
            $0 = .finiteStates(.init(phase: .failure(.invalidCredentials), username: "alice.liddell", password: "wonderland"))
        }
        await store.send(.passwordChanged("x")) {
            $0 = .finiteStates(.init(phase: .failure(.invalidCredentials), username: "alice.liddell", password: "x"))
        }
        await store.send(.errorAcknowledged) {
            // The article always went back to validCredentials; the credentials say otherwise.
            $0 = .finiteStates(.init(phase: .validatingCredentials, username: "alice.liddell", password: "x"))
        }
        await store.finish()
    }

    @Test func adHocSignInAndFailure() async {
        let clock = TestClock()
        let slowAuth = Self.auth(answer: .failure(.network(reason: "offline"))).intercepting { _ throws(AppError) in
            do { try await clock.sleep(for: .seconds(1)) } catch { throw .cancelled }
        }
        let store = TestStore(
            initialState: Login.State.adHoc(.init(username: "alice.liddell", password: "wonderland")),
            reducer: Login(auth: slowAuth))
        await store.send(.signInTapped) {
            $0 = .adHoc(.init(username: "alice.liddell", password: "wonderland", isBusy: true))
        }
        await store.send(.signInTapped)
        await store.expectDiagnostic(.invalidTransition, containing: "already in progress")
        #expect(await clock.untilSleeping())
        await clock.advance(by: .seconds(1))
        await store.receive(.authenticationResponse(.failure(.network(reason: "offline")))) {
            $0 = .adHoc(.init(username: "alice.liddell", password: "wonderland", error: .network(reason: "offline")))
        }
        await store.send(.errorAcknowledged) {
            $0 = .adHoc(.init(username: "alice.liddell", password: "wonderland"))
        }
        await store.finish()
    }

    @Test func middlewareSignInGoesThroughTheMiddleware() async {
        let auth = Self.auth(answer: .success(aliceSession))
        let store = TestStore(
            initialState: Login.State.middleware(.init(username: "alice.liddell", password: "wonderland")),
            reducer: Login(auth: auth)
        ) {
            LoginMiddleware(auth: auth)
        }
        await store.send(.signInTapped) {
            $0 = .middleware(.init(username: "alice.liddell", password: "wonderland", isLoggingIn: true))
        }
        // `login` is intercepted by the middleware: the reducer only sees its answer.
        await store.receive(.setAccessToken(aliceSession)) {
            $0 = .middleware(.init(username: "alice.liddell", hasAccessToken: true))
        }
        await store.finish()
    }

    @Test func middlewareForwardsAFailure() async {
        let auth = Self.auth(answer: .failure(.invalidCredentials))
        let store = TestStore(
            initialState: Login.State.middleware(.init(username: "alice.liddell", password: "wonderland")),
            reducer: Login(auth: auth)
        ) {
            LoginMiddleware(auth: auth)
        }
        await store.send(.signInTapped) {
            $0 = .middleware(.init(username: "alice.liddell", password: "wonderland", isLoggingIn: true))
        }
        await store.receive(.loginFailed(.invalidCredentials)) {
            $0 = .middleware(.init(username: "alice.liddell", password: "wonderland", error: .invalidCredentials))
        }
        await store.finish()
    }
}
