/// The work one sent action set in motion: the action itself, the effects it started, the
/// actions those effects sent back, their effects, and so on.
///
/// A lineage counts what is still outstanding (queued actions and running effects) and keeps the
/// diagnostics raised along the way, so ``StoreTask/settle(timeout:)`` can wait for exactly this
/// work, and a front end can tell which action was rejected, even while other work runs.
@usableFromInline
final class Lineage: Sendable {
    private struct State {
        var outstanding = 0
        var waiters = Waiters()
        var diagnostics: [Diagnostic] = []
    }

    /// At most this many diagnostics are kept; a runaway effect must not grow memory.
    static let diagnosticLimit = 64

    private let state = Locked(State())

    @usableFromInline
    init() {}

    /// Counts one more piece of outstanding work (a queued action, a running effect).
    func enter() {
        state.withLock { $0.outstanding += 1 }
    }

    /// Counts one piece of outstanding work done; wakes waiters when none is left.
    func leave() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.outstanding -= 1
            return state.outstanding == 0 ? state.waiters.takeAll() : []
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Keeps a diagnostic raised by this work.
    func record(_ diagnostic: Diagnostic) {
        state.withLock { state in
            if state.diagnostics.count < Self.diagnosticLimit { state.diagnostics.append(diagnostic) }
        }
    }

    /// Whether nothing is outstanding.
    var isSettled: Bool {
        state.withLock { $0.outstanding == 0 }
    }

    /// The diagnostics raised so far, oldest first.
    var diagnostics: [Diagnostic] {
        state.withLock { $0.diagnostics }
    }

    /// Returns once nothing is outstanding, or when the calling task is cancelled.
    func waitUntilSettled() async {
        await state.wait(in: \.waiters) { $0.outstanding == 0 }
    }
}

/// Runs `operation` until it returns or `timeout` passes on the continuous clock, whichever
/// comes first; returns whether `operation` returned. `operation` must end soon after it is
/// cancelled.
func withTimeout(_ timeout: Duration, _ operation: @escaping @Sendable () async -> Void) async -> Bool {
    await withTaskGroup(of: Bool.self) { group in
        group.addTask {
            await operation()
            return !Task.isCancelled
        }
        group.addTask {
            try? await Task.sleep(for: timeout)
            return false
        }
        let first = await group.next() ?? false
        group.cancelAll()
        return first
    }
}

/// A counter that waiters can watch for the next change: the effect runner signals it when an
/// effect ends, the manual clock when a task starts sleeping on it. A waiter reads ``version``,
/// checks what it is waiting for, and if that is not there yet, waits for a version after the
/// one it read, so no change between the check and the wait is missed.
package final class ChangeSignal: Sendable {
    private struct State {
        var version: UInt64 = 0
        var waiters = Waiters()
    }

    private let state = Locked(State())

    package init() {}

    /// The number of changes so far.
    package var version: UInt64 {
        state.withLock { $0.version }
    }

    /// Records a change and wakes every waiter.
    package func signal() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.version &+= 1
            return state.waiters.takeAll()
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the version is past `version`, or when the calling task is cancelled.
    package func wait(after version: UInt64) async {
        await state.wait(in: \.waiters) { $0.version != version }
    }
}
