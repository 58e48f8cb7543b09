import Synchronization

/// Runs one store's effects: starts, tracks and cancels them, and routes their actions.
@usableFromInline
final class EffectRunner<Action: Sendable>: @unchecked Sendable {
    /// Marks the trailing run of a throttled effect, so a later one can replace it.
    private struct ThrottleTrailing: Hashable, Sendable {
        let id: EffectID
    }

    @usableFromInline let lock = Lock()
    /// What runs, behind a pointer so that the lock alone guards it (no exclusivity checks).
    @usableFromInline let registry: UnsafeMutablePointer<EffectRegistry>
    /// Signalled each time an effect ends, for waiters that watch more than the effects.
    @usableFromInline package let activity = ChangeSignal()
    @usableFromInline let deliver: @Sendable (Action, Lineage) -> Void
    @usableFromInline let diagnostics: Diagnostics
    @usableFromInline let executor = EffectExecutor()
    /// Set by ``shutDown()`` under the registry's lock, so a launch that reads it under that
    /// lock sees it; effects that need no task read it without the lock.
    @usableFromInline let hasShutDown = Atomic<Bool>(false)

    /// Work to start once the store is idle, oldest first.
    @exclusivity(unchecked) @usableFromInline var pending = RingBuffer<PendingStart>()
    /// `pending.count`, written under `lock` and read without it: a store asks after every burst
    /// whether it kept work, and almost always it kept none.
    @usableFromInline let pendingCount = Atomic<Int>(0)
    /// Whether a thread is starting `pending`: set and cleared under `lock`, read without it by
    /// a thread that just kept work (if it reads `true`, the starter has yet to look for more).
    @usableFromInline let isStartingPending = Atomic<Bool>(false)

    /// - Parameter deliver: Sends an effect's action into the store, in the effect's lineage.
    @usableFromInline
    init(deliver: @escaping @Sendable (Action, Lineage) -> Void, diagnostics: Diagnostics) {
        // Sound: `registry` is owned by the runner alone (initialised here, freed in `deinit`)
        // and touched only with `lock` held.
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

    @inlinable
    func withRegistry<Result>(_ body: (inout EffectRegistry) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&registry.pointee)
    }

    /// Runs work that cannot suspend at once, on this thread, without a task or a registration (it
    /// is over before another thread could cancel it).
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

    /// Runs `run`'s work through `outlet`; with a `key`, then ends the effect registered under it.
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
        let trailingID = EffectID(ThrottleTrailing(id: throttle.id))
        let decision = withRegistry { registry -> ThrottleDecision in
            if let windowStart = registry.throttleWindows[throttle.id],
                let elapsed = clock.elapsed(windowStart), elapsed < throttle.interval
            {
                // The window's end runs one effect: its last (`latest`) or its first, as Combine's
                // and TCA's throttles deliver.
                let isOneWaiting = registry.keysByID[trailingID].map { !$0.isEmpty } ?? false
                return !throttle.latest && isOneWaiting ? .drop : .trailing(windowStart: windowStart)
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

    /// Counts the effect as running and starts its task, which must end with `finished(key)`.
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
                guard !hasShutDown.load(ordering: .relaxed), !outlet.lineage.isCancelled else { return nil }
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
                // One lookup of the id (its hash asks its box), not one per step.
                guard let index = registry.keysByID.index(forKey: id) else { continue }
                registry.keysByID.values[index].remove(key)
                if registry.keysByID.values[index].isEmpty { registry.keysByID.remove(at: index) }
            }
            // A cancelled effect stopped counting when it was cancelled.
            guard !entry.isCancelled else { return Ended() }
            return registry.stopCounting(entry)
        }
        ended.announce(activity)
    }
}
