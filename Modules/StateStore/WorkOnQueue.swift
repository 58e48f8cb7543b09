import Dispatch

/// The result of `work`, run on `queue`; an effect awaiting it goes on on the queue's thread,
/// rather than waking a thread of the concurrency pool.
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
