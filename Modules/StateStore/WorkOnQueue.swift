import Dispatch

/// The result of `work`, run on `queue`: the calling task waits without holding a thread, and an
/// effect of a store waiting for it goes on on the queue's thread once `work` returns, rather than
/// waking a thread of the concurrency pool for it (a hop and a wake-up per call).
public func result<Value: Sendable, Failure: Error>(
    of work: @escaping @Sendable () throws(Failure) -> Value,
    on queue: DispatchQueue
) async throws(Failure) -> Value {
    let outcome: Result<Value, Failure> = await withCheckedContinuation { continuation in
        queue.async {
            let outcome = Result { () throws(Failure) in try work() }
            runningWokenEffectsHere { continuation.resume(returning: outcome) }
        }
    }
    return try outcome.get()
}
