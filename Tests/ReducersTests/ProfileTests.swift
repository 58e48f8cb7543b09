import AppEnvironment
import Models
import Reducers
import StateStore
import StateStoreTesting
import Testing

@Suite("Profile")
struct ProfileTests {
    static let states: [Profile.State] = [.initialized, .loading, .loaded(alice), .failed(.network(reason: "offline"))]
    static let renamed = User(id: alice.id, username: alice.username, displayName: "Alice L.")
    static let commands: [Profile.Command] = [.load, .loaded(renamed), .failed(.sessionExpired)]

    /// The article's table, written out: the next state and effect, or `nil` for rejected.
    static func expected(_ state: Profile.State, _ command: Profile.Command) -> (Profile.State, Profile.Effect?)? {
        switch (state, command) {
        case (.initialized, .load), (.loaded, .load), (.failed, .load): (.loading, .load)
        case (.loading, .loaded(let user)): (.loaded(user), nil)
        case (.loading, .failed(let error)): (.failed(error), nil)
        default: nil
        }
    }

    @Test func everyCommandInEveryStateHasItsDefinedOutcome() {
        let checked = checkTable(Profile.self, states: Self.states, commands: Self.commands, expected: Self.expected)
        #expect(checked == 12)
    }

    static func client(_ answers: [Outcome<User>]) -> ProfileClient {
        let remaining = Answers(answers)
        var client = ProfileClient.failing(unexpectedCall)
        client.load = { token throws(AppError) in
            #expect(token == aliceToken)
            return try remaining.next().result.get()
        }
        return client
    }

    @Test func loadFailRetryAndLoad() async {
        let store = TestStore(
            initialState: .initialized,
            reducer: Profile.reducer(client: Self.client([.failure(.network(reason: "offline")), .success(alice)]), token: aliceToken))
        await store.send(.load) { $0 = .loading }
        await store.receive(.failed(.network(reason: "offline"))) { $0 = .failed(.network(reason: "offline")) }
        await store.send(.load) { $0 = .loading }
        await store.receive(.loaded(alice)) { $0 = .loaded(alice) }
        await store.finish()
    }

    @Test func aResponseWithNoRequestInFlightIsRejectedAndChangesNothing() async {
        let store = TestStore(
            initialState: .loaded(alice),
            reducer: Profile.reducer(client: .failing(unexpectedCall), token: aliceToken))
        await store.send(.loaded(Self.renamed))
        await store.expectDiagnostic(.invalidTransition, containing: "no profile request is in flight")
        await store.send(.failed(.sessionExpired))
        await store.expectDiagnostic(.invalidTransition, containing: "no profile request is in flight")
        await store.finish()
    }
}

@Suite("Posts")
struct PostsTests {
    static let first = post(1, "first")
    static let second = post(2, "second")
    static let phases: [Posts.Phase] = [.initialized, .loading, .loaded([first]), .failed(.network(reason: "offline"))]
    static let drafts: [Posts.Draft?] = [nil, Posts.Draft(text: "hello"), Posts.Draft(text: "hello", error: .network(reason: "offline"))]
    static let commands: [Posts.Command] = [
        .load, .loaded([second]), .failed(.sessionExpired), .add("new post"), .add("   "),
        .added(second), .addFailed(.network(reason: "timeout")),
    ]

    /// The table, written out: the next state and effect, or `nil` for rejected.
    static func expected(_ state: Posts.State, _ command: Posts.Command) -> (Posts.State, Posts.Effect?)? {
        let sending = state.draft?.isSending == true
        switch (command, state.phase) {
        case (.load, .initialized), (.load, .loaded), (.load, .failed):
            return sending ? nil : (Posts.State(phase: .loading, draft: state.draft), .load)
        case (.loaded(let posts), .loading):
            return (Posts.State(phase: .loaded(posts), draft: state.draft), nil)
        case (.failed(let error), .loading):
            return (Posts.State(phase: .failed(error), draft: state.draft), nil)
        case (.add("new post"), .loaded):
            return sending ? nil : (Posts.State(phase: state.phase, draft: Posts.Draft(text: "new post")), .add("new post"))
        case (.added(let post), .loaded(let posts)):
            return sending ? (Posts.State(phase: .loaded([post] + posts)), nil) : nil
        case (.addFailed(let error), .loaded):
            return sending ? (Posts.State(phase: state.phase, draft: Posts.Draft(text: "hello", error: error)), nil) : nil
        default:
            return nil
        }
    }

    @Test func everyCommandInEveryStateHasItsDefinedOutcome() {
        let states = Self.phases.flatMap { phase in Self.drafts.map { Posts.State(phase: phase, draft: $0) } }
        let checked = checkTable(Posts.self, states: states, commands: Self.commands, expected: Self.expected)
        #expect(checked == 4 * 3 * 7)
    }

    @Test func loadThenPublishAndRetryAFailedPost() async {
        let adds = Answers<Post>([.failure(.network(reason: "timeout")), .success(Self.second)])
        var client = ProfileClient.failing(unexpectedCall)
        client.loadPosts = { _ in [Self.first] }
        client.addPost = { _, text throws(AppError) in
            #expect(text == "second")
            return try adds.next().result.get()
        }
        let store = TestStore(initialState: Posts.State(), reducer: Posts.reducer(client: client, token: aliceToken))
        await store.send(.load) { $0.phase = .loading }
        await store.receive(.loaded([Self.first])) { $0.phase = .loaded([Self.first]) }
        await store.send(.add("second")) { $0.draft = Posts.Draft(text: "second") }
        await store.receive(.addFailed(.network(reason: "timeout"))) {
            $0.draft = Posts.Draft(text: "second", error: .network(reason: "timeout"))
        }
        await store.send(.add("second")) { $0.draft = Posts.Draft(text: "second") }
        await store.receive(.added(Self.second)) {
            $0.draft = nil
            $0.phase = .loaded([Self.second, Self.first])
        }
        await store.finish()
    }
}

/// Checks every (state, command) pair of a transducer against `expected` (the next state and
/// effect, or `nil` for a rejection, which must give a reason); returns how many pairs it checked.
func checkTable<Machine: Transducer>(
    _ machine: Machine.Type,
    states: [Machine.State],
    commands: [Machine.Command],
    expected: (Machine.State, Machine.Command) -> (Machine.State, Machine.Effect?)?
) -> Int where Machine.State: Equatable, Machine.Effect: Equatable {
    var checked = 0
    for state in states {
        for command in commands {
            switch (Machine.reduce(state, command), expected(state, command)) {
            case (.to(let next, let effect), let expected?):
                #expect(next == expected.0 && effect == expected.1, "\(state) + \(command)")
            case (.rejected(let reason), nil):
                #expect(!reason.isEmpty)
            case (let actual, let expected):
                Issue.record("\(state) + \(command): got \(actual), expected \(String(describing: expected))")
            }
            checked += 1
        }
    }
    return checked
}
