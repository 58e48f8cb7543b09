import Synchronization

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Runs the effects of one store: starts their tasks, tracks them for cancellation by id and
/// for shutdown, and routes their actions and errors.
///
/// Starting, running and ending an effect is `@inlinable`, so that it is specialised for the
/// app's action type like the rest of the store's hot path: unspecialised, every effect spent a
/// fifth of its time looking up generic metadata.
@usableFromInline
final class EffectRunner<Action: Sendable>: @unchecked Sendable {
    /// Marks the trailing run of a throttled effect, so a later one can replace it.
    private struct ThrottleTrailing: Hashable, Sendable {
        let id: EffectID
    }

    /// Guards `registry`.
    @usableFromInline let lock = Lock()
    /// What runs, behind a pointer so that the lock alone guards it (no exclusivity checks).
    @usableFromInline let registry: UnsafeMutablePointer<EffectRegistry>
    /// Signalled each time an effect ends, for waiters that watch more than the effects.
    @usableFromInline package let activity = ChangeSignal()
    @usableFromInline let deliver: @Sendable (Action, Lineage) -> Void
    @usableFromInline let diagnostics: Diagnostics
    /// Where the effects' tasks run.
    @usableFromInline let executor = EffectExecutor()
    /// Set by ``shutDown()``; read without the lock by effects that need no task.
    @usableFromInline let hasShutDown = Atomic<Bool>(false)

    /// - Parameter deliver: Sends an action produced by an effect back into the store, as part
    ///   of the effect's lineage.
    @usableFromInline
    init(deliver: @escaping @Sendable (Action, Lineage) -> Void, diagnostics: Diagnostics) {
        registry = .allocate(capacity: 1)
        registry.initialize(to: EffectRegistry())
        self.deliver = deliver
        self.diagnostics = diagnostics
        executor.owner = self
    }

    deinit {
        registry.deinitialize(count: 1)
        registry.deallocate()
    }

    /// Runs `body` with the registry, under the lock.
    @inlinable
    func withRegistry<Result>(_ body: (inout EffectRegistry) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&registry.pointee)
    }

    // MARK: - Starting

    /// Starts `effect`, returning the tasks it started at top level. Synchronous parts (`send`,
    /// `cancel`, diagnostics) happen before this returns.
    /// - Parameter collectsTasks: Whether the caller wants the tasks; without, none is kept.
    @inlinable
    func start(_ effect: Effect<Action>, origin: Action, lineage: Lineage, collectsTasks: Bool = true) -> [Task<Void, Never>] {
        var tasks: [Task<Void, Never>]? = collectsTasks ? [] : nil
        start(effect, origin: origin, ids: [], lineage: lineage, into: &tasks)
        return tasks ?? []
    }

    @inlinable
    func start(_ effect: Effect<Action>, origin: Action, ids: [EffectID], lineage: Lineage, into tasks: inout [Task<Void, Never>]?) {
        switch effect.operation {
        case .none:
            return
        case .send(let action):
            // Work cancelled through its send's handle sends nothing more, as its effects do not.
            if !lineage.isCancelled { deliver(action, lineage) }
        case .make(let make):
            if !lineage.isCancelled { deliver(make(), lineage) }
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
            if let immediate = run.immediate {
                runImmediately(immediate, of: run, origin: origin, ids: ids, lineage: lineage)
                return
            }
            // The task runs the work itself, not a closure around it: each async closure level
            // costs the effect a check of its executor preference.
            let outlet = EffectOutlet(runner: self, origin: origin, lineage: lineage)
            let task = launch(outlet, ids: ids, priority: run.priority, startInline: true) { key in
                { [self] in await perform(run, through: outlet, finishing: key) }
            }
            tasks?.append(task)
        case .concatenate, .throttle:
            let task = spawn(origin: origin, ids: ids, lineage: lineage, priority: nil) { [self] in
                await execute(effect, origin: origin, ids: ids, lineage: lineage)
            }
            tasks?.append(task)
        }
    }

    /// Runs work that cannot suspend at once, on this thread, without a task or a registration
    /// (it is over before anyone could cancel it); an error it throws is handled in a task, as
    /// any effect's is (`handle`). Refused, as a task would be, after shutdown or for
    /// cancelled work.
    /// `Task.cancel(id:)` from the work reaches this runner through ``ImmediateEffect/current``;
    /// cancelling one of the work's own `ids` drops what it sends afterwards.
    @inlinable
    func runImmediately(
        _ work: @Sendable (Send<Action>) throws -> Void, of run: Effect<Action>.Run, origin: Action,
        ids: [EffectID], lineage: Lineage
    ) {
        guard !lineage.isCancelled, !hasShutDown.load(ordering: .relaxed) else { return }
        let outlet = EffectOutlet(runner: self, origin: origin, lineage: lineage)
        let context = ImmediateEffect(runner: self, ids: ids)
        let send = Send<Action>(followsTaskCancellation: false) { if !context.isCancelled { outlet.send($0) } }
        do {
            try context.run { try work(send) }
            outlet.end()
        } catch {
            // Handling the error is what a task is for (a catch handler may await); it starts
            // inline, so a diagnostic is raised before `send` returns, as before.
            _ = launch(outlet, ids: [], priority: run.priority, startInline: true) { key in
                { [self] in
                    await handle(error, of: run, origin: origin, lineage: lineage, send: send)
                    outlet.end()
                    finished(key)
                }
            }
        }
    }

    /// Runs `effect` to completion inside an effect's task.
    @usableFromInline
    nonisolated(nonsending) func execute(_ effect: Effect<Action>, origin: Action, ids: [EffectID], lineage: Lineage) async {
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
            await perform(run, through: EffectOutlet(runner: self, origin: origin, lineage: lineage))
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
            await awaitChild(
                spawn(origin: origin, ids: ids, lineage: lineage, priority: nil) { [self] in
                    await execute(inner, origin: origin, ids: ids, lineage: lineage)
                })
        case .throttle(let throttle):
            await execute(throttle, origin: origin, ids: ids, lineage: lineage)
        }
    }

    /// Runs `run`'s work, sending through `outlet`; then, with a `key`, ends the effect
    /// registered under it.
    @inlinable
    nonisolated(nonsending) func perform(_ run: Effect<Action>.Run, through outlet: EffectOutlet<Action>, finishing key: UInt64? = nil) async {
        let send = Send<Action> { outlet.send($0) }
        defer {
            outlet.end()
            if let key { finished(key) }
        }
        do {
            try await run.body(send)
        } catch {
            await handle(error, of: run, origin: outlet.origin, lineage: outlet.lineage, send: send)
        }
    }

    @usableFromInline
    func reportSendAfterEnd(_ action: Action, origin: Action) {
        diagnostics.report(
            Diagnostic(
                .sendAfterEffectFinished,
                "\(ValueRenderer.oneLine(action)) was sent by an effect of \(ValueRenderer.oneLine(origin)) after that effect finished; it was dropped"))
    }

    /// Routes an error an effect threw: to its catch handler, or to the diagnostics.
    @usableFromInline
    nonisolated(nonsending) func handle(_ error: any Error, of run: Effect<Action>.Run, origin: Action, lineage: Lineage, send: Send<Action>) async {
        if error is CancellationError || Task.isCancelled { return }
        if let onError = run.onError {
            await onError(error, send)
        } else {
            report(
                Diagnostic(
                    .unhandledEffectError,
                    "an effect of \(ValueRenderer.oneLine(origin)) threw \(ValueRenderer.oneLine(error)) and no catch handler was given"), lineage)
        }
    }

    /// Reports `diagnostic` to the store's channel and keeps it with the work that raised it.
    @usableFromInline
    func report(_ diagnostic: Diagnostic, _ lineage: Lineage) {
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
        let decision = withRegistry { registry -> ThrottleDecision in
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
            await awaitChild(
                spawn(origin: origin, ids: ids, lineage: lineage, priority: nil) { [self] in
                    do { try await clock.sleep(windowStart, throttle.interval) } catch { return }
                    withRegistry { $0.throttleWindows[throttle.id] = clock.now() }
                    await execute(throttle.effect, origin: origin, ids: ids, lineage: lineage)
                })
        }
    }

    @usableFromInline
    func awaitChild(_ task: Task<Void, Never>) async {
        await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            task.cancel()
        }
    }

    /// Runs `body` in a tracked task on the global pool (cancelled on shutdown, counted by
    /// `waitUntilIdle`): work of the store's, not an effect, such as a deferred middleware's.
    @inlinable
    func track(origin: Action, lineage: Lineage, _ body: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        spawn(origin: origin, ids: [], lineage: lineage, priority: nil, startInline: false, body)
    }

    /// Starts `body` in a tracked task. With `startInline` (effects) the task runs on the
    /// store's ``EffectExecutor``, drained by this thread, so effects start in order and quick
    /// ones finish before `send` returns; otherwise it runs on the global pool.
    @inlinable
    func spawn(
        origin: Action, ids: [EffectID], lineage: Lineage, priority: TaskPriority?, startInline: Bool = true,
        _ body: @escaping @Sendable () async -> Void
    ) -> Task<Void, Never> {
        launch(EffectOutlet(runner: self, origin: origin, lineage: lineage), ids: ids, priority: priority, startInline: startInline) { key in
            { [self] in
                await body()
                finished(key)
            }
        }
    }

    /// Counts the effect `outlet` sends for as running and starts its task, which runs
    /// `operation(key)`; that work must end with `finished(key)`. The task holds this runner,
    /// which holds the executor, for as long as it runs.
    ///
    /// The effect is registered and its task created and kept under one lock: the task cannot
    /// finish before it is kept, and the effect can cancel itself by id from its first line.
    @inlinable
    func launch(
        _ outlet: EffectOutlet<Action>, ids: [EffectID], priority: TaskPriority?, startInline: Bool,
        _ operation: (UInt64) -> @Sendable () async -> Void
    ) -> Task<Void, Never> {
        // Returned, not assigned to a captured variable: a captured `var` is checked for
        // exclusive access at run time.
        func start() -> Task<Void, Never>? {
            withRegistry { registry in
                // Checked under the lock that `cancelEffects(of:)` takes: a cancelled lineage's
                // effect either is not started or is found running and cancelled.
                guard !registry.isShutDown, !outlet.lineage.isCancelled else { return nil }
                let lineage = outlet.lineage
                lineage.enter()
                let key = registry.insert(ids: ids, outlet: outlet, lineage: lineage)
                registry.liveCount += 1
                for id in ids { registry.keysByID[id, default: []].insert(key) }
                // Creating a task only enqueues its first job: on this executor, it waits for
                // this thread to drain it; on the pool, it waits for this lock to end.
                let started =
                    startInline
                    ? Task(executorPreference: executor, priority: priority, operation: operation(key))
                    : Task(priority: priority, operation: operation(key))
                registry.keep(started, for: key)
                return started
            }
        }
        return (startInline ? executor.drain(after: start) : start()) ?? Self.cancelledTask()
    }

    /// What an effect started after ``shutDown()`` gets: a task cancelled before it ran.
    @usableFromInline
    static func cancelledTask() -> Task<Void, Never> {
        let task = Task<Void, Never> {}
        task.cancel()
        return task
    }

    @inlinable
    func finished(_ key: UInt64) {
        let ended = withRegistry { registry -> Ended in
            guard let entry = registry.remove(key) else { return Ended() }
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
    @usableFromInline
    func cancel(id: EffectID) {
        let (tasks, ended) = withRegistry { registry -> ([Task<Void, Never>], Ended) in
            guard let keys = registry.keysByID[id] else { return ([], Ended()) }
            return registry.cancel(keys)
        }
        tasks.forEach { $0.cancel() }
        ended.announce(activity)
    }

    /// Cancels the running effects of the work `lineage` stands for.
    @usableFromInline
    func cancelEffects(of lineage: Lineage) {
        let (tasks, ended) = withRegistry { registry -> ([Task<Void, Never>], Ended) in
            registry.cancel(registry.running.compactMap { entry in entry.flatMap { $0.lineage === lineage ? $0.key : nil } })
        }
        tasks.forEach { $0.cancel() }
        ended.announce(activity)
    }

    /// Cancels every running effect; effects started later are cancelled at once.
    func shutDown() {
        let (tasks, ended) = withRegistry { registry -> ([Task<Void, Never>], Ended) in
            registry.isShutDown = true
            hasShutDown.store(true, ordering: .relaxed)
            return registry.cancel(registry.running.compactMap { $0.map(\.key) })
        }
        tasks.forEach { $0.cancel() }
        ended.announce(activity)
    }

    // MARK: - Inspecting

    /// The actions whose effects are still running, oldest first.
    var isIdle: Bool {
        withRegistry { $0.liveCount == 0 }
    }

    var runningOrigins: [Action] {
        withRegistry { registry in
            registry.running.compactMap { $0 }.filter { !$0.isCancelled }.sorted { $0.sequence < $1.sequence }
                .compactMap { $0.origin as? Action }
        }
    }

    /// The actions whose effects in `lineage` are still running, oldest first.
    func runningOrigins(in lineage: Lineage) -> [Action] {
        withRegistry { registry in
            registry.running.compactMap { $0 }.filter { !$0.isCancelled && $0.lineage === lineage }
                .sorted { $0.sequence < $1.sequence }.compactMap { $0.origin as? Action }
        }
    }

    /// How many effects are running.
    var runningCount: Int {
        withRegistry { $0.liveCount }
    }

    /// Returns once no effect is running, when the calling task is cancelled, or when `timeout`
    /// passed (`nil`: never); returns whether no effect is running.
    @discardableResult
    nonisolated(nonsending) func waitUntilIdle(timeout: Duration? = nil) async -> Bool {
        let key = withRegistry { $0.idleWaiters.makeKey() }
        await suspendAsWaiter(timeout: timeout) { continuation in
            withRegistry { registry -> Bool in
                if registry.liveCount == 0 || Task.isCancelled { return false }
                registry.idleWaiters.add(continuation, key: key)
                return true
            }
        } remove: { [self] in
            withRegistry { $0.idleWaiters.remove(key: key) }
        }
        return isIdle
    }
}

/// An effect an ``EffectRunner`` is running.
@usableFromInline
struct RunningEffect {
    @usableFromInline var task: Task<Void, Never>?
    @usableFromInline var ids: [EffectID]
    /// Where the effect sends, which knows the action whose effect this is. An object, not the
    /// action: an action in an `any Sendable` is boxed, an allocation for every effect.
    @usableFromInline let outlet: any EffectOrigin
    /// The work the effect belongs to.
    @usableFromInline let lineage: Lineage
    @usableFromInline var isCancelled = false
    /// When it started, relative to the others: slots are reused, so they do not tell.
    @usableFromInline let sequence: UInt64
    /// Where the registry keeps it.
    @usableFromInline let slot: Int

    /// What names it in the registry: its slot, and its sequence number, so that a key kept past
    /// the effect's end never names the next effect in that slot.
    @inlinable
    var key: UInt64 { UInt64(slot) | (sequence << 32) }

    @inlinable
    init(ids: [EffectID], outlet: any EffectOrigin, lineage: Lineage, sequence: UInt64, slot: Int) {
        self.task = nil
        self.ids = ids
        self.outlet = outlet
        self.lineage = lineage
        self.sequence = sequence
        self.slot = slot
    }

    /// The action whose effect this is, as `Action`.
    var origin: any Sendable { outlet.originAction }
}

/// What an ``EffectRunner`` tracks. Declared outside the generic runner so that it is not
/// generic: its dictionaries then run code compiled for concrete types instead of looking up
/// generic metadata each time an effect starts or ends.
@usableFromInline
struct EffectRegistry {
    @usableFromInline var nextSequence: UInt64 = 0
    /// What runs, by key: a slot, free again once its effect finished. An array, not a
    /// dictionary: starting and ending an effect then hash nothing.
    @usableFromInline var running: [RunningEffect?] = []
    @usableFromInline var freeSlots: [Int] = []
    @usableFromInline var keysByID: [EffectID: Set<UInt64>] = [:]
    @usableFromInline var throttleWindows: [EffectID: any Sendable] = [:]
    @usableFromInline var idleWaiters = Waiters()
    @usableFromInline var isShutDown = false
    /// How many entries of `running` are not cancelled: what counts as running.
    @usableFromInline var liveCount = 0

    @usableFromInline
    init() {}

    /// Keeps a new running effect in a free slot; returns its key.
    @inlinable
    mutating func insert(ids: [EffectID], outlet: any EffectOrigin, lineage: Lineage) -> UInt64 {
        let sequence = nextSequence
        nextSequence += 1
        let slot = freeSlots.popLast() ?? running.count
        let entry = RunningEffect(ids: ids, outlet: outlet, lineage: lineage, sequence: sequence, slot: slot)
        let key = entry.key
        if slot == running.count { running.append(consume entry) } else { running[slot] = consume entry }
        return key
    }

    /// The slot of the entry `key` names, if it still runs.
    @inlinable
    func slot(of key: UInt64) -> Int? {
        let slot = Int(truncatingIfNeeded: key & 0xFFFF_FFFF)
        guard slot < running.count, running[slot]?.key == key else { return nil }
        return slot
    }

    /// Stores the task of the effect at `key`, once it is made.
    @inlinable
    mutating func keep(_ task: Task<Void, Never>, for key: UInt64) {
        guard let slot = slot(of: key) else { return }
        running[slot]?.task = task
    }

    /// Takes the entry at `key` out, freeing its slot.
    @inlinable
    mutating func remove(_ key: UInt64) -> RunningEffect? {
        guard let slot = slot(of: key) else { return nil }
        freeSlots.append(slot)
        return running[slot].take()
    }

    /// Stops counting `entry` as running; says whom to tell.
    @inlinable
    mutating func stopCounting(_ entry: RunningEffect) -> Ended {
        liveCount -= 1
        return Ended(waiters: liveCount == 0 ? idleWaiters.takeAll() : [], lineage: entry.lineage)
    }

    /// Marks the effects at `keys` cancelled; returns their tasks and whom to tell.
    @usableFromInline
    mutating func cancel(_ keys: some Sequence<UInt64>) -> ([Task<Void, Never>], Ended) {
        var tasks: [Task<Void, Never>] = []
        var ended = Ended()
        for key in keys {
            guard let slot = slot(of: key), var entry = running[slot], !entry.isCancelled else { continue }
            entry.isCancelled = true
            running[slot] = entry
            if let task = entry.task { tasks.append(task) }
            ended.merge(stopCounting(entry))
        }
        return (tasks, ended)
    }
}

/// Who must hear that effects stopped counting as running, told once the registry's lock is
/// released: idle waiters first, then the lineages, so whoever a lineage wakes sees the store
/// without those effects.
@usableFromInline
struct Ended {
    @usableFromInline var waiters: [CheckedContinuation<Void, Never>] = []
    /// The lineage of the one effect that ended (the usual case), without an array.
    @usableFromInline var lineage: Lineage?
    @usableFromInline var moreLineages: [Lineage] = []

    @inlinable
    init(waiters: [CheckedContinuation<Void, Never>] = [], lineage: Lineage? = nil) {
        self.waiters = waiters
        self.lineage = lineage
    }

    @usableFromInline
    mutating func merge(_ other: Ended) {
        waiters += other.waiters
        if let other = other.lineage {
            if lineage == nil { lineage = other } else { moreLineages.append(other) }
        }
        moreLineages += other.moreLineages
    }

    @inlinable
    func announce(_ activity: ChangeSignal) {
        guard lineage != nil || !waiters.isEmpty else { return }
        waiters.forEach { $0.resume() }
        lineage?.leave()
        moreLineages.forEach { $0.leave() }
        activity.signal()
    }
}

/// Where a running effect's `Send` delivers: the effect's store and work, and whether its body
/// has returned (a `Send` kept past that point has its actions dropped, and said so, since
/// nothing waits for them any more). One object, so that the `Send` closure needs no context of
/// its own.
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

/// An effect running without a task (a `.run` whose closure awaits nothing), as
/// `Task.cancel(id:)` sees it from inside: the runner to cancel in, and the effect's own ids.
@usableFromInline
final class ImmediateEffect: @unchecked Sendable {
    /// The thread-specific slot holding the effect running without a task on a thread: a
    /// thread's, not a task's, since the work runs on the sending thread whatever task it is
    /// in (and binding a task-local value takes the task's status lock).
    private static let slot: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// The effect running without a task on this thread, if one is.
    static var current: ImmediateEffect? {
        pthread_getspecific(slot).map { Unmanaged<ImmediateEffect>.fromOpaque($0).takeUnretainedValue() }
    }

    @usableFromInline let runner: any EffectCancelling
    @usableFromInline let ids: [EffectID]
    /// Set when the effect cancelled one of its own ids; read and written on its thread only.
    @usableFromInline var isCancelled = false

    @inlinable
    init(runner: any EffectCancelling, ids: [EffectID]) {
        self.runner = runner
        self.ids = ids
    }

    /// Runs `work` as this effect (``current`` while it runs).
    @usableFromInline
    func run(_ work: () throws -> Void) rethrows {
        let outer = pthread_getspecific(Self.slot)
        pthread_setspecific(Self.slot, Unmanaged.passUnretained(self).toOpaque())
        defer { pthread_setspecific(Self.slot, outer) }
        try withExtendedLifetime(self) { try work() }
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
    /// Cancels the running effects of `lineage`; the caller marked it cancelled first, so none
    /// of its effects starts after this.
    func cancelEffects(of lineage: Lineage)
}

extension EffectRunner: EffectCancelling {}
