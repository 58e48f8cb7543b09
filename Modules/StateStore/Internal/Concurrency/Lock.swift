#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A non-recursive mutual-exclusion lock for the runtime's short critical sections.
@usableFromInline
final class Lock: @unchecked Sendable {
    #if canImport(Darwin)
    @usableFromInline let primitive: UnsafeMutablePointer<os_unfair_lock>
    #else
    @usableFromInline let primitive: UnsafeMutablePointer<pthread_mutex_t>
    #endif

    @usableFromInline
    init() {
        // Sound: a mutex must not move once used; this one lives at one address, owned by the
        // lock, initialised here and destroyed in `deinit`.
        primitive = .allocate(capacity: 1)
        #if canImport(Darwin)
        primitive.initialize(to: os_unfair_lock())
        #else
        primitive.initialize(to: pthread_mutex_t())
        pthread_mutex_init(primitive, nil)
        #endif
    }

    deinit {
        #if !canImport(Darwin)
        pthread_mutex_destroy(primitive)
        #endif
        primitive.deinitialize(count: 1)
        primitive.deallocate()
    }

    @inlinable
    func lock() {
        #if canImport(Darwin)
        os_unfair_lock_lock(primitive)
        #else
        pthread_mutex_lock(primitive)
        #endif
    }

    @inlinable
    func unlock() {
        #if canImport(Darwin)
        os_unfair_lock_unlock(primitive)
        #else
        pthread_mutex_unlock(primitive)
        #endif
    }

    @inlinable
    func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock()
        defer { unlock() }
        return try body()
    }

    /// Takes the lock if no one holds it; `false` (without waiting) if someone does.
    @inlinable
    func tryLock() -> Bool {
        #if canImport(Darwin)
        os_unfair_lock_trylock(primitive)
        #else
        pthread_mutex_trylock(primitive) == 0
        #endif
    }
}

/// A value guarded by a `Lock`; shared with the package's other modules.
package final class Locked<Value>: @unchecked Sendable {
    @usableFromInline let lock = Lock()
    /// Guarded by `lock`, so not checked for exclusive access at run time as well.
    @exclusivity(unchecked) @usableFromInline var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    /// Inlinable, so that other modules run it specialised for their values: generic, every
    /// call copied and destroyed its value through the type's metadata.
    @inlinable
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// `body`'s result with the value, or `nil` at once when someone else holds it: for work
    /// that may be skipped rather than wait behind a long holder.
    @inlinable
    package func withLockIfAvailable<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result? {
        guard lock.tryLock() else { return nil }
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// Identity of the calling thread, used to tell a re-entrant send from a concurrent one.
@usableFromInline
struct ThreadIdentity: Equatable {
    @usableFromInline let raw: UInt

    @inlinable
    init(raw: UInt) {
        self.raw = raw
    }

    @inlinable
    static var current: ThreadIdentity {
        #if canImport(Darwin)
        ThreadIdentity(raw: UInt(bitPattern: pthread_self()))
        #else
        ThreadIdentity(raw: UInt(pthread_self()))
        #endif
    }
}
