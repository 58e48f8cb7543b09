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

    @Test func signingOutForgetsTheSessionAtOnceAndReportsAServerFailure() async {
        var auth = AuthClient.failing(unexpectedCall)
        auth.signOut = { token throws(AppError) in
            #expect(token == aliceToken)
            throw .network(reason: "offline")
        }
        let store = TestStore(initialState: Session.State(current: aliceSession), reducer: Session(auth: auth))
        await store.send(.signOutTapped) { $0.current = nil }
        await store.receive(.signOutResponse(.failure(.network(reason: "offline")))) { $0.error = .network(reason: "offline") }
        await store.send(.signOutTapped)
        await store.expectDiagnostic(.invalidTransition, containing: "nobody is signed in")
        await store.finish()
    }
}
