import Dispatch

/// Ends waits whose time ran out: one thread serves every timed wait of the process.
package final class Deadlines: Sendable {
    package static let shared = Deadlines()

    private struct Pending {
        let deadline: UInt64
        let expire: @Sendable () -> Void
    }

    private struct State {
        var pending: [UInt64: Pending] = [:]
        var nextKey: UInt64 = 0
        /// Until when the thread sleeps (`nil`: until woken).
        var sleepsUntil: UInt64?
    }

    private let state = Locked(State())
    private let wake = DispatchSemaphore(value: 0)

    /// Made on the first timed wait, with its thread.
    private init() {
        DispatchQueue(label: "appcore.deadlines").async { [self] in run() }
    }

    /// Calls `expire` once `timeout` passed, unless ``cancel(_:)`` is called with the returned key
    /// first; `nil` (nothing registered) for a timeout too long to ever pass.
    package func add(after timeout: Duration, expire: @escaping @Sendable () -> Void) -> UInt64? {
        let (seconds, attoseconds) = timeout.components
        guard seconds < 100 * 365 * 86_400 else { return nil }
        let nanoseconds = max(0, seconds) * 1_000_000_000 + max(0, attoseconds) / 1_000_000_000
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(nanoseconds)
        let (key, earlier) = state.withLock { state -> (UInt64, Bool) in
            defer { state.nextKey += 1 }
            state.pending[state.nextKey] = Pending(deadline: deadline, expire: expire)
            let earlier = state.sleepsUntil.map { deadline < $0 } ?? true
            if earlier { state.sleepsUntil = deadline }
            return (state.nextKey, earlier)
        }
        if earlier { wake.signal() }
        return key
    }

    /// Forgets the deadline registered under `key` (the thread is not woken: it is cheaper to let
    /// it wake once for nothing than to move its alarm on every wait).
    package func cancel(_ key: UInt64) {
        state.withLock { _ = $0.pending.removeValue(forKey: key) }
    }

    private func run() {
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            let (expired, until) = state.withLock { state -> ([@Sendable () -> Void], UInt64?) in
                let expired = state.pending.filter { $0.value.deadline <= now }
                for key in expired.keys { state.pending[key] = nil }
                state.sleepsUntil = state.pending.values.lazy.map(\.deadline).min()
                return (expired.values.map(\.expire), state.sleepsUntil)
            }
            // Ended from a task, not from here: when the shared pool is busy (a blocked thread, a
            // long computation), work that was ready before the deadline runs before the wait is
            // judged to have timed out, as it would if the wait itself had slept in a task.
            if !expired.isEmpty { Task { for expire in expired { expire() } } }
            _ = wake.wait(timeout: until.map { DispatchTime(uptimeNanoseconds: $0) } ?? .distantFuture)
        }
    }
}
