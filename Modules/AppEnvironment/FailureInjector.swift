import Models
import Synchronization

/// Makes the next calls of chosen endpoints fail, so every error path can be walked on purpose.
public final class FailureInjector: Sendable {
    /// Per endpoint, the failures armed in order, as runs of one error.
    private let armed = Mutex<[Endpoint: [(error: AppError, count: Int)]]>([:])

    /// An injector with nothing armed.
    public init() {}

    /// Makes the next `count` calls of `endpoint` fail with `error` (a simulated network failure
    /// unless given), after any failures already armed for it.
    public func failNext(_ endpoint: Endpoint, count: Int = 1, with error: AppError? = nil) {
        guard count > 0 else { return }
        let error = error ?? .network(reason: "simulated failure of \(endpoint)")
        armed.withLock { $0[endpoint, default: []].append((error, count)) }
    }

    /// How many failures are still armed for `endpoint`.
    public func pendingFailures(of endpoint: Endpoint) -> Int {
        armed.withLock { armed in
            (armed[endpoint] ?? []).reduce(0) { total, run in total.addingReportingOverflow(run.count).overflow ? Int.max : total + run.count }
        }
    }

    /// Disarms every endpoint.
    public func reset() {
        armed.withLock { $0.removeAll() }
    }

    /// Throws the next armed failure of `endpoint`, if any.
    public func check(_ endpoint: Endpoint) throws(AppError) {
        let failure = armed.withLock { armed -> AppError? in
            guard var runs = armed[endpoint], let first = runs.first else { return nil }
            if first.count > 1 { runs[0].count -= 1 } else { runs.removeFirst() }
            armed[endpoint] = runs.isEmpty ? nil : runs
            return first.error
        }
        if let failure { throw failure }
    }
}
