import Synchronization

/// Runs the effects of one store: starts their tasks, tracks them for cancellation by id and
/// for shutdown, and routes their actions and errors.
@usableFromInline
final class EffectRunner<Action: Sendable>: Sendable {
    /// Marks the trailing run of a throttled effect, so a later one can replace it.
    private struct ThrottleTrailing: Hashable, Sendable {
        let id: EffectID
    }

    private let registry = Locked(EffectRegistry())
    /// Signalled each time an effect ends, for waiters that watch more than the effects.
    package let activity = ChangeSignal()
    private let deliver: @Sendable (Action, Lineage) -> Void
    private let diagnostics: Diagnostics

    /// - Parameter deliver: Sends an action produced by an effect back into the store, as part
    ///   of the effect's lineage.
    init(deliver: @escaping @Sendable (Action, Lineage) -> Void, diagnostics: Diagnostics) {
        self.deliver = deliver
        self.diagnostics = diagnostics
    }

    // MARK: - Starting

    /// Starts `effect`, returning the tasks it started at top level. Synchronous parts (`send`,
    /// `cancel`, diagnostics) happen before this returns.
    @usableFromInline
    func start(_ effect: Effect<Action>, origin: Action, lineage: Lineage) -> [Task<Void, Never>] {
        var tasks: [Task<Void, Never>] = []
        start(effect, origin: origin, ids: [], lineage: lineage, into: &tasks)
        return tasks
    }

    private func start(_ effect: Effect<Action>, origin: Action, ids: [EffectID], lineage: Lineage, into tasks: inout [Task<Void, Never>]) {
        switch effect.operation {
        case .none:
            return
        case .send(let action):
            deliver(action, lineage)
        case .make(let make):
            deliver(make(), lineage)
        case .diagnostic(let diagnostic):
            report(diagnostic, lineage)
        case .cancel(let id):
            cancel(id: id)
        case .merge(let effects):
            for effect in effects { start(effect, origin: origin, ids: ids, lineage: lineage, into: &tasks) }
        case .cancellable(let id, let cancelInFlight, let inner):
            if cancelInFlight { cancel(id: id) }
            start(inner, origin: origin, ids: ids + [id], lineage: lineage, into: &tasks)
        case .run(let run):
            tasks.append(spawn(origin: origin, ids: ids, lineage: lineage, priority: run.priority) { [self] in
                await perform(run, origin: origin, ids: ids, lineage: lineage)
            })
        case .concatenate, .throttle:
            tasks.append(spawn(origin: origin, ids: ids, lineage: lineage, priority: nil) { [self] in
                await execute(effect, origin: origin, ids: ids, lineage: lineage)
            })
        }
    }

    /// Runs `effect` to completion inside an effect's task.
    private func execute(_ effect: Effect<Action>, origin: Action, ids: [EffectID], lineage: Lineage) async {
        switch effect.operation {
        case .none:
            return
        case .send(let action):
            if !Task.isCancelled { deliver(action, lineage) }
        case .make(let make):
            if !Task.isCancelled { deliver(make(), lineage) }
        case .diagnostic(let diagnostic):
            report(diagnostic, lineage)
        case .cancel(let id):
            cancel(id: id)
        case .run(let run):
            await perform(run, origin: origin, ids: ids, lineage: lineage)
        case .merge(let effects):
            await withTaskGroup(of: Void.self) { group in
                for effect in effects {
                    group.addTask { await self.execute(effect, origin: origin, ids: ids, lineage: lineage) }
                }
            }
        case .concatenate(let effects):
            for effect in effects {
                if Task.isCancelled { return }
                await execute(effect, origin: origin, ids: ids, lineage: lineage)
            }
        case .cancellable(let id, let cancelInFlight, let inner):
            if cancelInFlight { cancel(id: id) }
            let ids = ids + [id]
            await awaitChild(spawn(origin: origin, ids: ids, lineage: lineage, priority: nil) { [self] in
                await execute(inner, origin: origin, ids: ids, lineage: lineage)
            })
        case .throttle(let throttle):
            await execute(throttle, origin: origin, ids: ids, lineage: lineage)
        }
    }

    private func perform(_ run: Effect<Action>.Run, origin: Action, ids: [EffectID], lineage: Lineage) async {
        let deliver = deliver
        let diagnostics = diagnostics
        let ended = EffectEnd()
        // Kept past the effect's end, a `Send` still reaches here: such a send is dropped, and
        // said so, since nothing waits for it any more.
        let send = Send<Action> { action in
            guard !ended.hasEnded else {
                diagnostics.report(Diagnostic(.sendAfterEffectFinished,
                    "\(ValueRenderer.oneLine(action)) was sent by an effect of \(ValueRenderer.oneLine(origin)) after that effect finished; it was dropped"))
                return
            }
            deliver(action, lineage)
        }
        defer { ended.end() }
        await EffectContext.$current.withValue(EffectContext(runner: self, ids: ids)) {
            do {
                try await run.body(send)
            } catch {
                if error is CancellationError || Task.isCancelled { return }
                if let onError = run.onError {
                    await onError(error, send)
                } else {
                    report(Diagnostic(.unhandledEffectError,
                        "an effect of \(ValueRenderer.oneLine(origin)) threw \(ValueRenderer.oneLine(error)) and no catch handler was given"), lineage)
                }
            }
        }
    }

    /// Reports `diagnostic` to the store's channel and keeps it with the work that raised it.
    private func report(_ diagnostic: Diagnostic, _ lineage: Lineage) {
        lineage.record(diagnostic)
        diagnostics.report(diagnostic)
    }

    private enum ThrottleDecision {
        case now
        case drop
        case trailing(windowStart: any Sendable)
    }

    private func execute(_ throttle: Effect<Action>.Throttle, origin: Action, ids: [EffectID], lineage: Lineage) async {
        let clock = throttle.clock
        let decision = registry.withLock { registry -> ThrottleDecision in
            if let windowStart = registry.throttleWindows[throttle.id],
                let elapsed = clock.elapsed(windowStart), elapsed < throttle.interval
            {
                return throttle.latest ? .trailing(windowStart: windowStart) : .drop
            }
            registry.throttleWindows[throttle.id] = clock.now()
            return .now
        }
        switch decision {
        case .now:
            await execute(throttle.effect, origin: origin, ids: ids, lineage: lineage)
        case .drop:
            return
        case .trailing(let windowStart):
            let trailingID = EffectID(ThrottleTrailing(id: throttle.id))
            cancel(id: trailingID)
            let ids = ids + [trailingID]
            await awaitChild(spawn(origin: origin, ids: ids, lineage: lineage, priority: nil) { [self] in
                do { try await clock.sleep(windowStart, throttle.interval) } catch { return }
                registry.withLock { $0.throttleWindows[throttle.id] = clock.now() }
                await execute(throttle.effect, origin: origin, ids: ids, lineage: lineage)
            })
        }
    }

    private func awaitChild(_ task: Task<Void, Never>) async {
        await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            task.cancel()
        }
    }

    /// Runs `body` in a tracked task (cancelled on shutdown, counted by `waitUntilIdle`).
    @usableFromInline
    func track(origin: Action, lineage: Lineage, startInline: Bool, _ body: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        spawn(origin: origin, ids: [], lineage: lineage, priority: nil, startInline: startInline, body)
    }

    /// Starts `body` in a tracked task. With `startInline` (the default for effects) the task
    /// begins on the calling thread where the platform allows it, so effects start in order and
    /// quick ones cost no thread hop.
    private func spawn(
        origin: Action, ids: [EffectID], lineage: Lineage, priority: TaskPriority?, startInline: Bool = true,
        _ body: @escaping @Sendable () async -> Void
    ) -> Task<Void, Never> {
        let (key, shutDown) = registry.withLock { registry in
            let key = registry.nextKey
            registry.nextKey += 1
            guard !registry.isShutDown else { return (key, true) }
            lineage.enter()
            registry.running[key] = RunningEffect(task: nil, ids: ids, origin: origin, lineage: lineage)
            registry.liveCount += 1
            for id in ids { registry.keysByID[id, default: []].insert(key) }
            return (key, false)
        }
        if shutDown {
            let task = Task<Void, Never> {}
            task.cancel()
            return task
        }
        let operation: @Sendable () async -> Void = { [self] in
            await body()
            finished(key)
        }
        let task: Task<Void, Never>
        if !startInline {
            task = Task(priority: priority, operation: operation)
        } else if #available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *) {
            task = Task.immediate(priority: priority, operation: operation)
        } else {
            task = Task(priority: priority, operation: operation)
        }
        let cancelNow = registry.withLock { registry -> Bool in
            guard var entry = registry.running[key] else { return false }
            entry.task = task
            registry.running[key] = entry
            return entry.isCancelled
        }
        if cancelNow { task.cancel() }
        return task
    }

    private func finished(_ key: UInt64) {
        let ended = registry.withLock { registry -> Ended in
            guard let entry = registry.running.removeValue(forKey: key) else { return Ended() }
            for id in entry.ids {
                registry.keysByID[id]?.remove(key)
                if registry.keysByID[id]?.isEmpty == true { registry.keysByID[id] = nil }
            }
            // A cancelled effect stopped counting when it was cancelled.
            guard !entry.isCancelled else { return Ended() }
            return registry.stopCounting(entry)
        }
        ended.announce(activity)
    }

    // MARK: - Cancelling

    /// Cancels the effects with `id`. They stop counting as running at once (``isIdle``,
    /// ``runningOrigins``, settling), whenever their tasks finish unwinding; what they send from
    /// now on is dropped.
    func cancel(id: EffectID) {
        let (tasks, ended) = registry.withLock { registry -> ([Task<Void, Never>], Ended) in
            guard let keys = registry.keysByID[id] else { return ([], Ended()) }
            return registry.cancel(keys)
        }
        tasks.forEach { $0.cancel() }
        ended.announce(activity)
    }

    /// Cancels every running effect; effects started later are cancelled at once.
    func shutDown() {
        let (tasks, ended) = registry.withLock { registry -> ([Task<Void, Never>], Ended) in
            registry.isShutDown = true
            return registry.cancel(registry.running.keys)
        }
        tasks.forEach { $0.cancel() }
        ended.announce(activity)
    }

    // MARK: - Inspecting

    /// The actions whose effects are still running, oldest first.
    var isIdle: Bool {
        registry.withLock { $0.liveCount == 0 }
    }

    var runningOrigins: [Action] {
        registry.withLock { registry in
            registry.running.filter { !$0.value.isCancelled }.sorted { $0.key < $1.key }.compactMap { $0.value.origin as? Action }
        }
    }

    /// The actions whose effects in `lineage` are still running, oldest first.
    func runningOrigins(in lineage: Lineage) -> [Action] {
        registry.withLock { registry in
            registry.running.filter { !$0.value.isCancelled && $0.value.lineage === lineage }
                .sorted { $0.key < $1.key }.compactMap { $0.value.origin as? Action }
        }
    }

    /// How many effects are running.
    var runningCount: Int {
        registry.withLock { $0.liveCount }
    }

    /// Returns once no effect is running, or when the calling task is cancelled.
    func waitUntilIdle() async {
        await registry.wait(in: \.idleWaiters) { $0.liveCount == 0 }
    }
}

/// An effect an ``EffectRunner`` is running.
private struct RunningEffect {
    var task: Task<Void, Never>?
    var ids: [EffectID]
    /// The action whose effect this is, as `Action`.
    var origin: any Sendable
    /// The work the effect belongs to.
    let lineage: Lineage
    var isCancelled = false
}

/// What an ``EffectRunner`` tracks. Declared outside the generic runner so that it is not
/// generic: its dictionaries then run code compiled for concrete types instead of looking up
/// generic metadata each time an effect starts or ends.
private struct EffectRegistry {
    var nextKey: UInt64 = 0
    var running: [UInt64: RunningEffect] = [:]
    var keysByID: [EffectID: Set<UInt64>] = [:]
    var throttleWindows: [EffectID: any Sendable] = [:]
    var idleWaiters = Waiters()
    var isShutDown = false
    /// How many entries of `running` are not cancelled: what counts as running.
    var liveCount = 0

    /// Stops counting `entry` as running; says whom to tell.
    mutating func stopCounting(_ entry: RunningEffect) -> Ended {
        liveCount -= 1
        return Ended(waiters: liveCount == 0 ? idleWaiters.takeAll() : [], lineages: [entry.lineage])
    }

    /// Marks the effects at `keys` cancelled; returns their tasks and whom to tell.
    mutating func cancel(_ keys: some Sequence<UInt64>) -> ([Task<Void, Never>], Ended) {
        var tasks: [Task<Void, Never>] = []
        var ended = Ended()
        for key in keys {
            guard var entry = running[key], !entry.isCancelled else { continue }
            entry.isCancelled = true
            running[key] = entry
            if let task = entry.task { tasks.append(task) }
            ended.merge(stopCounting(entry))
        }
        return (tasks, ended)
    }
}

/// Who must hear that effects stopped counting as running, told once the registry's lock is
/// released: idle waiters first, then the lineages, so whoever a lineage wakes sees the store
/// without those effects.
private struct Ended {
    var waiters: [CheckedContinuation<Void, Never>] = []
    var lineages: [Lineage] = []

    mutating func merge(_ other: Ended) {
        waiters += other.waiters
        lineages += other.lineages
    }

    func announce(_ activity: ChangeSignal) {
        guard !lineages.isEmpty || !waiters.isEmpty else { return }
        waiters.forEach { $0.resume() }
        lineages.forEach { $0.leave() }
        activity.signal()
    }
}

/// Whether an effect's body has returned; its `Send` checks it.
private final class EffectEnd: Sendable {
    private let ended = Atomic<Bool>(false)

    var hasEnded: Bool { ended.load(ordering: .acquiring) }

    func end() { ended.store(true, ordering: .releasing) }
}

/// The effect running on the current task, for `Task.cancel(id:)`: its runner and its ids.
struct EffectContext: Sendable {
    @TaskLocal static var current: EffectContext?

    let runner: any EffectCancelling
    let ids: [EffectID]
}

/// What `Task.cancel(id:)` reaches: the runner of the effect that calls it.
protocol EffectCancelling: AnyObject, Sendable {
    func cancel(id: EffectID)
}

extension EffectRunner: EffectCancelling {}

extension Task where Success == Never, Failure == Never {
    /// Cancels, at once, the effects with `id` of the store whose effect calls this — as The
    /// Composable Architecture's `Task.cancel(id:)` does. From inside an effect's body this is
    /// how it stops a sibling (or itself) without sending an action first; the cancelled effects
    /// stop counting as running before this returns. Outside an effect it does nothing.
    public static func cancel<ID: Hashable & Sendable>(id: ID) {
        guard let context = EffectContext.current else { return }
        let id = EffectID(id)
        context.runner.cancel(id: id)
        // An effect started inline has no task handle yet while it runs; cancelling its own id
        // must still stop its sends.
        if context.ids.contains(id) { withUnsafeCurrentTask { $0?.cancel() } }
    }
}
