import AppEnvironment
import Foundation
import Models
import StateStore
import StateStoreTesting
import Testing

/// Reports a client call the test did not expect as a test issue.
let unexpectedCall = UnexpectedCallReporter { message in
    Issue.record(Comment(rawValue: message))
}

/// An environment where every client call fails the test unless the test overrides it.
func failingEnvironment(clock: TestClock = TestClock()) -> AppEnvironment {
    AppEnvironment.failing(unexpectedCall, clock: clock)
}

let fixedDate = Date(timeIntervalSince1970: 1_800_000_000)

let alice = User(id: User.ID(UUID(sequence: 100)), username: "alice.liddell", displayName: "Alice", bio: "Curiouser")
let aliceToken = AccessToken("token-alice")
let aliceSession = AuthSession(user: alice, token: aliceToken)
let goodCredentials = Credentials(username: "alice.liddell", password: "wonderland")

func note(_ n: UInt64, _ text: String, updated: TimeInterval = 0) -> Note {
    Note(id: Note.ID(UUID(sequence: n)), text: text, createdAt: fixedDate, updatedAt: fixedDate.addingTimeInterval(updated))
}

func post(_ n: UInt64, _ text: String) -> Post {
    Post(id: Post.ID(UUID(sequence: n)), authorID: alice.id, text: text, createdAt: fixedDate)
}

/// Canned answers handed out in order, one per client call.
final class Answers<Value: Sendable>: Sendable {
    private let queue: Locked<[Outcome<Value>]>

    init(_ answers: [Outcome<Value>]) {
        queue = Locked(answers)
    }

    func next() -> Outcome<Value> {
        queue.withLock { answers in
            guard !answers.isEmpty else {
                Issue.record("more calls than canned answers")
                return .failure(.network(reason: "no canned answer left"))
            }
            return answers.removeFirst()
        }
    }

    /// How many answers are left.
    var remaining: Int { queue.withLock { $0.count } }
}
