#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An effect running without a task (a `.run` whose closure awaits nothing), as
/// `Task.cancel(id:)` sees it from inside: the runner to cancel in, and the effect's own ids.
@usableFromInline
final class ImmediateEffect: @unchecked Sendable {
    /// The thread-specific slot of the effect running without a task on a thread: its work runs on
    /// the sending thread whatever task it is in.
    private static let slot: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    static var current: ImmediateEffect? {
        // Sound: the slot holds an effect only while its `run` keeps it alive on this thread.
        pthread_getspecific(slot).map { Unmanaged<ImmediateEffect>.fromOpaque($0).takeUnretainedValue() }
    }

    @usableFromInline let runner: any EffectCancelling
    @usableFromInline let ids: [EffectID]
    /// Set when one of the effect's ids is cancelled on its thread (by the effect itself, or by
    /// an action it sent); read and written on its thread only.
    @usableFromInline var isCancelled = false
    /// The task-less work this work runs inside of on this thread, while `run` runs.
    private var outer: ImmediateEffect?

    @inlinable
    init(runner: any EffectCancelling, ids: [EffectID]) {
        self.runner = runner
        self.ids = ids
    }

    /// Runs `work` as this effect (``current`` while it runs).
    @usableFromInline
    func run(_ work: () throws -> Void) rethrows {
        let outer = Self.current
        self.outer = outer
        // Sound: the slot holds `self` only while `run` runs (reset by the `defer`), which keeps
        // `self` alive; `outer` is kept alive by its own `run` further up the stack.
        pthread_setspecific(Self.slot, Unmanaged.passUnretained(self).toOpaque())
        defer {
            pthread_setspecific(Self.slot, outer.map { Unmanaged.passUnretained($0).toOpaque() })
            self.outer = nil
        }
        try withExtendedLifetime(self) { try work() }
    }

    /// Marks the task-less work of `runner` running on this thread under `id` as cancelled:
    /// what it sends afterwards is dropped, as a cancelled task's sends are.
    @usableFromInline
    static func cancelRunning(id: EffectID, of runner: any EffectCancelling) {
        var effect = current
        while let running = effect {
            if running.runner === runner, running.ids.contains(id) { running.isCancelled = true }
            effect = running.outer
        }
    }

    /// Cancels the store's effects with `id`, this one among them when it has `id`.
    func cancel(id: EffectID) {
        if ids.contains(id) { isCancelled = true }
        runner.cancel(id: id)
    }
}

/// What `Task.cancel(id:)` reaches: the runner of the effect that calls it.
@usableFromInline
protocol EffectCancelling: AnyObject, Sendable {
    func cancel(id: EffectID)
    /// Cancels the running effects of `lineage`, which the caller marked cancelled first.
    func cancelEffects(of lineage: Lineage)
}

extension EffectRunner: EffectCancelling {}
