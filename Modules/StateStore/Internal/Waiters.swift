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
    /// `timeout` passed (`nil`: never); returns whether `isMet` holds then. Whoever makes it hold
    /// must resume the waiters at `waiters` (``Waiters/takeAll()``).
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
