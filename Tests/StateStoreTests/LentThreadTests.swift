import Dispatch
import Foundation
import TestSupport
import Testing

@testable import StateStore

/// A feature whose effect waits for work another thread does, as a database call's does.
private struct Waiting: Reducer {
    struct State: Equatable, Sendable {
        /// The thread that went on with the effect after the wait, and then with its action.
        var resumedOn: [UInt] = []
    }

    enum Action: Equatable, Sendable {
        case start
        case resumed(UInt)
        case recorded(UInt)
    }

    let waiting: Collected<CheckedContinuation<Void, Never>>

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .start:
            let waiting = waiting
            return .run { send in
                await withCheckedContinuation { waiting.append($0) }
                send(.resumed(UInt(pthread_self())))
            }
        case .resumed(let thread):
            state.resumedOn.append(thread)
            return .run { send in send(.recorded(UInt(pthread_self()))) }
        case .recorded(let thread):
            state.resumedOn.append(thread)
            return .none
        }
    }
}

@Suite("A thread lent to the effects it wakes")
struct LentThreadTests {
    /// A store whose effect waits; its task, and the continuation that wakes the effect.
    private func waitingStore() async throws -> (RootStore<Waiting.State, Waiting.Action>, StoreTask, CheckedContinuation<Void, Never>) {
        let waiting = Collected<CheckedContinuation<Void, Never>>()
        let store = RootStore(initialState: Waiting.State(), reducer: Waiting(waiting: waiting))
        let task = store.send(.start)
        #expect(await eventually { waiting.count == 1 })
        return (store, task, try #require(waiting.all.first))
    }

    @Test func anEffectWokenFromALentThreadGoesOnThereBeforeTheLendingEnds() async throws {
        let (store, task, continuation) = try await waitingStore()

        // A database queue's thread, as when a live client's work is done.
        let seen = Collected<(lender: UInt, resumedOn: [UInt])>()
        DispatchQueue(label: "a client's queue").async {
            runningWokenEffectsHere { continuation.resume() }
            seen.append((UInt(pthread_self()), store.currentState.resumedOn))
        }
        #expect(await eventually { seen.count == 1 })
        let (lender, resumedOn) = try #require(seen.all.first)
        #expect(resumedOn == [lender, lender], "the effect, and the effect of the action it sent, ran on the lent thread before it was given back")
        #expect(await task.settle(timeout: .seconds(30)))
    }

    @Test func theDocumentedExampleWaitsForWorkOnItsQueue() async {
        let hashingQueue = DispatchQueue(label: "hashing")
        let password = "wonderland"
        let hash = await result(of: { slowHash(password) }, on: hashingQueue)
        #expect(hash == slowHash("wonderland"))
    }

    @Test func workOnAQueueThrowsItsOwnError() async {
        struct Refused: Error, Equatable {}
        await #expect(throws: Refused()) {
            try await result(of: { () throws(Refused) -> Int in throw Refused() }, on: DispatchQueue(label: "a client's queue"))
        }
    }

    @Test func withoutLendingTheWokenEffectGoesOnElsewhere() async throws {
        let (store, task, continuation) = try await waitingStore()
        let resumer = Collected<UInt>()
        DispatchQueue(label: "a client's queue").async {
            resumer.append(UInt(pthread_self()))
            continuation.resume()
        }
        #expect(await task.settle(timeout: .seconds(30)))
        #expect(store.currentState.resumedOn.count == 2)
        #expect(!store.currentState.resumedOn.contains(try #require(resumer.all.first)), "a thread that did not lend itself runs no effect")
    }
}

/// Stands for work that blocks its thread.
private func slowHash(_ password: String) -> Int {
    password.unicodeScalars.reduce(5381) { ($0 &* 33) &+ Int($1.value) }
}
