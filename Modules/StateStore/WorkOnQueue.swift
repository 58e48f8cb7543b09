import Dispatch

/// The result of `work`, run on `queue`: the calling task waits without holding a thread, and an
/// effect of a store waiting for it goes on on the queue's thread once `work` returns, rather than
/// waking a thread of the concurrency pool for it (a hop and a wake-up per call).
///
/// For a client whose calls block (a database, a hash): they then hold none of the pool's few
/// threads. The queue's next block waits until the woken effects suspend or finish.
///
/// ```swift
/// let hash = await result(of: { slowHash(password) }, on: hashingQueue)
/// ```
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
