import Dispatch
import Foundation
import StateStoreTesting
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

    /// The block that resumes goes on at once: the effect runs elsewhere while the block still
    /// runs (once it has returned, its thread may run the effect's next job).
    @Test func withoutLendingTheWokenEffectGoesOnElsewhere() async throws {
        let (store, task, continuation) = try await waitingStore()
        let seen = Collected<(resumer: UInt, resumedOn: [UInt])>()
        DispatchQueue(label: "a client's queue").async {
            continuation.resume()
            let deadline = Date().addingTimeInterval(30)
            while store.currentState.resumedOn.count < 2, Date() < deadline { usleep(1_000) }
            seen.append((UInt(pthread_self()), store.currentState.resumedOn))
        }
        #expect(await task.settle(timeout: .seconds(30)))
        #expect(await eventually { seen.count == 1 })
        let (resumer, resumedOn) = try #require(seen.all.first)
        #expect(resumedOn.count == 2, "the effect went on while the block that woke it still ran")
        #expect(!resumedOn.contains(resumer), "a thread that did not lend itself runs no effect while its block runs")
    }
}

/// Stands for work that blocks its thread.
private func slowHash(_ password: String) -> Int {
    password.unicodeScalars.reduce(5381) { ($0 &* 33) &+ Int($1.value) }
}

/// Effects whose waits end together; those that go on on a lane then wait for all to be running
/// (on the pool none waits: blocking its few threads would stall every other test).
private struct Gathering: Reducer {
    struct State: Equatable, Sendable {
        var gathered = 0
    }

    enum Action: Equatable, Sendable {
        case start
        case gathered
    }

    let waiting: Collected<CheckedContinuation<Void, Never>>
    let running: Locked<Int>
    let expected: Int

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .start:
            let (waiting, running, expected) = (waiting, running, expected)
            return .run { send in
                await withCheckedContinuation { waiting.append($0) }
                running.withLock { $0 += 1 }
                guard HandOffLane.isCurrent else { return send(.gathered) }
                // Blocks its lane on purpose: it goes on only once all have started, which they
                // could not if a woken effect waited behind a busy lane.
                let deadline = Date().addingTimeInterval(30)
                while running.withLock({ $0 }) < expected, Date() < deadline { usleep(1_000) }
                if running.withLock({ $0 }) >= expected { send(.gathered) }
            }
        case .gathered:
            state.gathered += 1
            return .none
        }
    }
}

extension LentThreadTests {
    /// Woken by another thread, effects go to idle hand-off lanes, and past them to the pool: more
    /// effects than there are lanes still run side by side.
    @Test func effectsWokenTogetherRunSideBySideBeyondTheLanes() async throws {
        let count = HandOffLane.count + 1
        let waiting = Collected<CheckedContinuation<Void, Never>>()
        let store = RootStore(
            initialState: Gathering.State(), reducer: Gathering(waiting: waiting, running: Locked(0), expected: count))
        let tasks = (0..<count).map { _ in store.send(.start) }
        #expect(await eventually { waiting.count == count })
        DispatchQueue(label: "a client's queue").async {
            for continuation in waiting.all { continuation.resume() }
        }
        for task in tasks { #expect(await task.settle(timeout: .seconds(60))) }
        #expect(store.currentState.gathered == count, "every effect ran; those on lanes while all had started")
    }
}

/// An effect that holds its thread once woken, and one that sleeps on a clock.
private struct Holding: Reducer {
    enum Action: Equatable, Sendable {
        case hold
        case sleep
    }

    let waiting: Collected<CheckedContinuation<Void, Never>>
    let holding: DispatchSemaphore
    let released: DispatchSemaphore
    let clock: TestClock

    func reduce(into state: inout Int, action: Action) -> Effect<Action> {
        switch action {
        case .hold:
            let (waiting, holding, released) = (waiting, holding, released)
            return .run { _ in
                await withCheckedContinuation { waiting.append($0) }
                holding.signal()
                _ = released.wait(timeout: .now() + 30)
            }
        case .sleep:
            let clock = clock
            return .run { _ in try? await clock.sleep(for: .seconds(1)) }
        }
    }
}

extension LentThreadTests {
    /// While another thread runs the store's effects (one woken by a client's queue, still
    /// running there), a new effect still starts before `send` returns, as a test that moves a
    /// clock next expects of it.
    @Test func anEffectStartedWhileAnotherThreadRunsEffectsStartsBeforeSendReturns() async throws {
        let waiting = Collected<CheckedContinuation<Void, Never>>()
        let (holding, released) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        let clock = TestClock()
        let store = RootStore(
            initialState: 0, reducer: Holding(waiting: waiting, holding: holding, released: released, clock: clock))
        let held = store.send(.hold)
        #expect(await eventually { waiting.count == 1 })
        let continuation = try #require(waiting.all.first)
        DispatchQueue(label: "a client's queue").async { continuation.resume() }
        // Until the woken effect holds the thread that runs it.
        #expect(await Task.detached { holding.wait(timeout: .now() + 30) == .success }.value)
        let slept = store.send(.sleep)
        #expect(clock.sleeperCount == 1, "the new effect reached its sleep before send returned")
        released.signal()
        await clock.advance(by: .seconds(1))
        #expect(await held.settle(timeout: .seconds(30)))
        #expect(await slept.settle(timeout: .seconds(30)))
    }
}
