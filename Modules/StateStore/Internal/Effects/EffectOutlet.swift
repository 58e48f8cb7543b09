import Synchronization

/// Where a running effect's `Send` delivers: its store, its work, and whether its body returned (a
/// `Send` kept past that has its actions dropped, and said so).
@usableFromInline
final class EffectOutlet<Action: Sendable>: Sendable {
    @usableFromInline let runner: EffectRunner<Action>
    @usableFromInline let origin: Action
    @usableFromInline let lineage: Lineage
    @usableFromInline let ended = Atomic<Bool>(false)

    @inlinable
    init(runner: EffectRunner<Action>, origin: Action, lineage: Lineage) {
        self.runner = runner
        self.origin = origin
        self.lineage = lineage
    }

    @inlinable
    func send(_ action: Action) {
        guard !ended.load(ordering: .acquiring) else { return runner.reportSendAfterEnd(action, origin: origin) }
        runner.deliver(action, lineage)
    }

    @inlinable
    func end() { ended.store(true, ordering: .releasing) }
}

/// What the registry keeps of an effect's outlet: its action, for ``EffectRunner/runningOrigins``.
@usableFromInline
protocol EffectOrigin: AnyObject, Sendable {
    var originAction: any Sendable { get }
}

extension EffectOutlet: EffectOrigin {
    @usableFromInline var originAction: any Sendable { origin }
}
