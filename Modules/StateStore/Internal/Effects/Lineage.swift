import Synchronization

/// The work one sent action set in motion: the action itself, the effects it started, the
/// actions those effects sent back, their effects, and so on.
@usableFromInline
final class Lineage: Sendable {
    /// What is rarely touched: waiters, and the diagnostics raised.
    private struct Rare {
        var waiters = Waiters()
        /// What runs once nothing is outstanding (``whenSettled(_:)``), on the thread that settles.
        var settledActions: [@Sendable () -> Void] = []
        var diagnostics: [Diagnostic] = []
    }

    /// At most this many diagnostics are kept; a runaway effect must not grow memory.
    static let diagnosticLimit = 64

    /// Outstanding work, counted without a lock: every effect and queued action counts here.
    private let outstanding = Atomic<Int>(0)
    /// Made on first use: most work is never waited for, and a send should not pay for a lock.
    private let rareStorage = AtomicLazyReference<Locked<Rare>>()
    /// Raised, after `rareStorage` is set, by a waiter before it reads the count; `leave` reads
    /// it after its decrement, so one of the two sees the other (both sequentially consistent).
    private let mayHaveWaiters = Atomic<Bool>(false)
    /// Set once the send that began this work was cancelled (its ``StoreTask``): the work's
    /// effects are cancelled, those running and those its actions start later.
    private let cancelled = Atomic<Bool>(false)
    private let canceller: (any EffectCancelling)?

    @usableFromInline
    init(canceller: (any EffectCancelling)? = nil) {
        self.canceller = canceller
    }

    /// Cancels the work: the effects that run, and every one its actions start from now on.
    @usableFromInline
    func cancel() {
        cancelled.store(true, ordering: .sequentiallyConsistent)
        canceller?.cancelEffects(of: self)
    }

    @usableFromInline
    var isCancelled: Bool {
        cancelled.load(ordering: .sequentiallyConsistent)
    }

    private var rare: Locked<Rare> {
        rareStorage.load() ?? rareStorage.storeIfNil(Locked(Rare()))
    }

    /// Counts one more piece of outstanding work (a queued action, a running effect).
    @usableFromInline
    func enter() {
        outstanding.add(1, ordering: .sequentiallyConsistent)
    }

    /// Counts one piece of outstanding work done; wakes waiters when none is left.
    @usableFromInline
    func leave() {
        guard outstanding.subtract(1, ordering: .sequentiallyConsistent).newValue == 0,
            mayHaveWaiters.load(ordering: .sequentiallyConsistent)
        else { return }
        // A waiter checks the count under this lock, so it either saw zero or is in the list.
        let (waiters, actions) = rare.withLock { rare in
            defer { rare.settledActions.removeAll() }
            return (rare.waiters.takeAll(), rare.settledActions)
        }
        for action in actions { action() }
        for waiter in waiters { waiter.resume() }
    }

    /// Runs `action` once nothing is outstanding: now, on this thread, if nothing is; else on the
    /// thread whose work settles it, right as it does (before any waiter resumes).
    func whenSettled(_ action: @escaping @Sendable () -> Void) {
        let rare = rare
        mayHaveWaiters.store(true, ordering: .sequentiallyConsistent)
        let added = rare.withLock { rare -> Bool in
            guard !isSettled else { return false }
            rare.settledActions.append(action)
            return true
        }
        if !added { action() }
    }

    func record(_ diagnostic: Diagnostic) {
        rare.withLock { rare in
            if rare.diagnostics.count < Self.diagnosticLimit { rare.diagnostics.append(diagnostic) }
        }
    }

    var isSettled: Bool {
        outstanding.load(ordering: .sequentiallyConsistent) == 0
    }

    /// The diagnostics raised so far, oldest first.
    var diagnostics: [Diagnostic] {
        rareStorage.load()?.withLock { $0.diagnostics } ?? []
    }

    /// Returns once nothing is outstanding, on cancellation, or after `timeout`; whether settled.
    nonisolated(nonsending) func waitUntilSettled(timeout: Duration) async -> Bool {
        let rare = rare
        mayHaveWaiters.store(true, ordering: .sequentiallyConsistent)
        return await rare.wait(in: \.waiters, timeout: timeout) { _ in isSettled }
    }
}

/// A counter that waiters can watch for the next change: the effect runner signals it when an
/// effect ends, the manual clock when a task starts sleeping on it.
@usableFromInline
package final class ChangeSignal: Sendable {
    private let changes = Atomic<UInt64>(0)
    /// Whether a waiter may be waiting: signalling takes the lock only then.
    private let mayHaveWaiters = Atomic<Bool>(false)
    private let waiters = Locked(Waiters())

    package init() {}

    package var version: UInt64 {
        changes.load(ordering: .sequentiallyConsistent)
    }

    /// Records a change and wakes every waiter.
    @usableFromInline
    package func signal() {
        changes.add(1, ordering: .sequentiallyConsistent)
        guard mayHaveWaiters.load(ordering: .sequentiallyConsistent) else { return }
        // A waiter raises the flag before it reads the version, so one that read the old
        // version is in the list by the time this lock is taken.
        for waiter in waiters.withLock({ $0.takeAll() }) { waiter.resume() }
    }

    /// Returns once the version is past `version`, or when the calling task is cancelled.
    package func wait(after version: UInt64) async {
        mayHaveWaiters.store(true, ordering: .sequentiallyConsistent)
        await waiters.wait(in: \.self) { _ in self.version != version }
    }
}
