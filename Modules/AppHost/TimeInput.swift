import AppEnvironment
import Foundation
import Reducers
import StateStore

/// The host's clock as an input of the app: once the clock reaches the state's
/// ``AppFeature/State/nextTimeChange``, the app is sent `.session(.timePassed(now))`.
final class TimeInput: Sendable {
    private let store: RootStore<AppFeature.State, AppFeature.Action>
    private let now: DateGenerator
    private let timer = Locked<(subscription: StoreSubscription?, sleeper: Task<Void, Never>?, isStopped: Bool)>((nil, nil, false))

    init(store: RootStore<AppFeature.State, AppFeature.Action>, now: DateGenerator) {
        self.store = store
        self.now = now
    }

    /// Sends the time if the state waits for it by now: called whenever a test clock moves.
    func clockMoved() {
        let now = now()
        guard let due = store.currentState.nextTimeChange, due <= now else { return }
        store.send(.session(.timePassed(now)))
    }

    /// Follows real time: sleeps until each next time change the state declares, then sends it.
    func followRealTime() {
        let deadlines = store.scope(deriving: { $0.nextTimeChange }, action: { $0 })
        let subscription = deadlines.observe { [weak self] deadline in self?.sleep(until: deadline) }
        timer.withLock { $0.subscription = subscription }
    }

    /// Stops following real time.
    func stop() {
        timer.withLock { timer in
            timer.subscription?.cancel()
            timer.sleeper?.cancel()
            timer = (nil, nil, true)
        }
    }

    private func sleep(until deadline: Date?) {
        let sleeper = deadline.map { deadline in
            Task { [weak self, now] in
                // The wall clock and the sleep's clock may drift apart: look again on waking.
                while case let wait = deadline.timeIntervalSince(now()), wait > 0 {
                    try? await Task.sleep(for: .seconds(wait))
                    if Task.isCancelled { return }
                }
                self?.clockMoved()
            }
        }
        timer.withLock { timer in
            timer.sleeper?.cancel()
            // A change heard as the host stopped following the clock starts nothing.
            if timer.isStopped { sleeper?.cancel() } else { timer.sleeper = sleeper }
        }
    }
}
