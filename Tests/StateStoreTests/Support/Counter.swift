import StateStore
import Synchronization

/// A tiny feature exercising every kind of effect, used across the runtime's tests.
struct Counter: Reducer {
    struct State: Equatable, Sendable {
        var count = 0
        var log: [String] = []
    }

    enum Action: Equatable, Sendable {
        case increment
        case decrement
        case note(String)
        case sendLater(String)
        case sendMade
        case fetch
        case fetchResponse(Int)
        case fail
        case failed(String)
        case failUnhandled
        case sendTwice
        case startTicking
        case tick
        case stopTicking
    }

    struct TickID: Hashable, Sendable {}

    /// How many `fetch` effects have run: lets tests prove effects are not re-run.
    let fetches: Counter.Probe
    var clock: any Clock<Duration> = ContinuousClock()

    init(fetches: Counter.Probe = Counter.Probe(), clock: any Clock<Duration> = ContinuousClock()) {
        self.fetches = fetches
        self.clock = clock
    }

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .increment:
            state.count += 1
            return .none
        case .decrement:
            state.count -= 1
            return .none
        case .note(let text):
            state.log.append(text)
            return .none
        case .sendLater(let text):
            return .send(.note(text))
        case .sendMade:
            let fetches = fetches
            return .send {
                fetches.increment()
                return .note("made")
            }
        case .fetch:
            let fetches = fetches
            return .run { send in
                fetches.increment()
                send(.fetchResponse(42))
            }
        case .fetchResponse(let value):
            state.count = value
            return .none
        case .fail:
            return .run { _ in
                throw ProbeError.boom
            } catch: { error, send in
                send(.failed("\(error)"))
            }
        case .failed(let message):
            state.log.append(message)
            return .none
        case .failUnhandled:
            return .run { _ in throw ProbeError.boom }
        case .sendTwice:
            return .merge(.send(.note("a")), .send(.note("b")))
        case .startTicking:
            let clock = clock
            return .run { send in
                while true {
                    try await clock.sleep(for: .seconds(1))
                    send(.tick)
                }
            }
            .cancellable(id: TickID(), cancelInFlight: true)
        case .tick:
            state.count += 1
            return .none
        case .stopTicking:
            return .cancel(id: TickID())
        }
    }

    /// A thread-safe counter of side effects.
    final class Probe: Sendable {
        private let value = Atomic<Int>(0)
        init() {}
        func increment() { value.add(1, ordering: .relaxed) }
        var count: Int { value.load(ordering: .relaxed) }
    }

    enum ProbeError: Error, Equatable { case boom }
}
