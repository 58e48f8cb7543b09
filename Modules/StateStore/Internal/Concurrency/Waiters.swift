/// Tasks suspended until a condition on some locked state holds: kept inside that state, so
/// checking the condition and starting to wait happen under one lock and no wake-up is missed.
@usableFromInline
package struct Waiters {
    private var nextKey: UInt64 = 0
    private var continuations: [UInt64: CheckedContinuation<Void, Never>] = [:]

    package init() {}

    /// Takes every waiter out, for resuming once the lock is released.
    @usableFromInline
    package mutating func takeAll() -> [CheckedContinuation<Void, Never>] {
        guard !continuations.isEmpty else { return [] }
        defer { continuations.removeAll() }
        return Array(continuations.values)
    }

    package mutating func makeKey() -> UInt64 {
        defer { nextKey += 1 }
        return nextKey
    }

    package mutating func add(_ continuation: CheckedContinuation<Void, Never>, key: UInt64) {
        continuations[key] = continuation
    }

    package mutating func remove(key: UInt64) -> CheckedContinuation<Void, Never>? {
        continuations.removeValue(forKey: key)
    }
}

extension Locked {
    /// Returns once `isMet` holds for the value, when the calling task is cancelled, or when
    /// `timeout` passed (`nil`: never); returns whether `isMet` holds then.
    @discardableResult
    nonisolated(nonsending) package func wait(
        in waiters: WritableKeyPath<Value, Waiters> & Sendable, timeout: Duration? = nil,
        until isMet: (Value) -> Bool
    ) async -> Bool {
        let key = withLock { $0[keyPath: waiters].makeKey() }
        await suspendAsWaiter(timeout: timeout) { continuation in
            withLock { value -> Bool in
                if isMet(value) || Task.isCancelled { return false }
                value[keyPath: waiters].add(continuation, key: key)
                return true
            }
        } remove: { [self] in
            withLock { $0[keyPath: waiters].remove(key: key) }
        }
        return withLock { isMet($0) }
    }
}

/// Suspends the calling task as a waiter: `add` records the continuation (`true`) or finds the wait
/// over (`false`); `remove` takes it back out if still recorded.
nonisolated(nonsending) package func suspendAsWaiter(
    timeout: Duration?,
    add: (CheckedContinuation<Void, Never>) -> Bool,
    remove: @escaping @Sendable () -> CheckedContinuation<Void, Never>?
) async {
    var deadline: UInt64?
    await withTaskCancellationHandler {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            guard add(continuation) else { return continuation.resume() }
            if let timeout { deadline = Deadlines.shared.add(after: timeout) { remove()?.resume() } }
        }
    } onCancel: {
        remove()?.resume()
    }
    if let deadline { Deadlines.shared.cancel(deadline) }
}
