import AppEnvironment
import Models
import Reducers
import StateStore
import StateStoreTesting
import Testing

@Suite("Session")
struct SessionTests {
    @Test func signUpSucceedsOrSaysWhy() async {
        let answers = Answers<User>([.success(alice), .failure(.usernameTaken("alice.liddell"))])
        var auth = AuthClient.failing(unexpectedCall)
        auth.signUp = { credentials throws(AppError) in
            #expect(credentials == goodCredentials)
            return try answers.next().result.get()
        }
        let store = TestStore(initialState: Session.State(), reducer: Session(auth: auth))
        await store.send(.signUpTapped(goodCredentials)) { $0.signUp = .inProgress("alice.liddell") }
        await store.receive(.signUpResponse(.success(alice))) { $0.signUp = .succeeded(alice) }
        await store.send(.signUpTapped(goodCredentials)) { $0.signUp = .inProgress("alice.liddell") }
        await store.receive(.signUpResponse(.failure(.usernameTaken("alice.liddell")))) {
            $0.signUp = .failed(.usernameTaken("alice.liddell"))
        }
        await store.finish()
    }

    @Test func invalidCredentialsAreRejectedBeforeAnyCall() async {
        let store = TestStore(initialState: Session.State(), reducer: Session(auth: .failing(unexpectedCall)))
        await store.send(.signUpTapped(Credentials(username: "al", password: "wonderland")))
        await store.expectDiagnostic(.invalidTransition, containing: "at least 8 characters")
        await store.finish()
    }

    /// Signing out ends the app's signed-in part (which holds the token) at once, whatever the
    /// auth client answers later.
    @Test func signingOutForgetsTheSessionAtOnceAndReportsAServerFailure() async {
        var environment = failingEnvironment()
        environment.auth.signOut = { token throws(AppError) in
            #expect(token == aliceToken)
            throw .network(reason: "offline")
        }
        var initial = AppFeature.State()
        initial.user = SignedIn.State(session: aliceSession)
        let store = TestStore(initialState: initial, reducer: AppFeature(environment: environment))
        await store.send(.session(.signOutTapped)) { $0.user = nil }
        await store.expectDiagnostic(.failure, containing: "offline")
        await store.receive(.session(.signOutResponse(.failure(.network(reason: "offline"))))) { $0.session.error = .network(reason: "offline") }
        await store.send(.session(.signOutTapped))
        await store.expectDiagnostic(.invalidTransition, containing: "nobody is signed in")
        await store.finish()
    }
}
