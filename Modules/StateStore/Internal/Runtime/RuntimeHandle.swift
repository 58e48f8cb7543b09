import Synchronization

/// How closures that may outlive a store (effects, deferred middleware, subscriptions) reach
/// its runtime: a strong reference that the ``RootStore`` cuts when it goes away.
@usableFromInline
final class RuntimeHandle<State: Sendable, Action: Sendable>: @unchecked Sendable {
    @usableFromInline let lock = Lock()
    /// Guarded by `lock`, so not checked for exclusive access at run time as well.
    @exclusivity(unchecked) @usableFromInline var target: StoreRuntime<State, Action>?

    @usableFromInline
    init() {}

    @inlinable
    var runtime: StoreRuntime<State, Action>? {
        lock.lock()
        defer { lock.unlock() }
        return target
    }

    @usableFromInline
    func connect(_ runtime: StoreRuntime<State, Action>) {
        lock.withLock { target = runtime }
    }

    func disconnect() {
        lock.withLock { target = nil }
    }
}
