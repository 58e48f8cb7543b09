import Synchronization

/// Starting effects in TCA's order: synchronous parts at once, work once the store is idle.
extension EffectRunner {
    /// Work an effect asks for, kept until the store is idle (``startLater(_:origin:ids:lineage:collector:)``).
    @usableFromInline
    struct PendingStart {
        /// A `run`, or an effect that runs in a task of its own (a concatenation's rest, a throttle).
        @usableFromInline let effect: Effect<Action>
        @usableFromInline let origin: Action
        @usableFromInline let ids: [EffectID]
        @usableFromInline let lineage: Lineage
        @usableFromInline let collector: Completion?

        @inlinable
        init(effect: Effect<Action>, origin: Action, ids: [EffectID], lineage: Lineage, collector: Completion?) {
            self.effect = effect
            self.origin = origin
            self.ids = ids
            self.lineage = lineage
            self.collector = collector
        }
    }

    /// Starts `effect` for `origin`: its synchronous parts now, in order; its work once the store
    /// has reduced what is queued (``startPending()``), in TCA's order.
    @inlinable
    func start(_ effect: Effect<Action>, origin: Action, lineage: Lineage, collector: inout Completion?, collectsTasks: Bool) {
        start(effect, origin: origin, ids: [], lineage: lineage, collector: &collector, collectsTasks: collectsTasks)
    }

    @inlinable
    func start(
        _ effect: Effect<Action>, origin: Action, ids: [EffectID], lineage: Lineage, collector: inout Completion?, collectsTasks: Bool
    ) {
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
            for effect in effects {
                start(effect, origin: origin, ids: ids, lineage: lineage, collector: &collector, collectsTasks: collectsTasks)
            }
        case .cancellable(let id, let cancelInFlight, let inner):
            if cancelInFlight { cancel(id: id) }
            start(inner, origin: origin, ids: ids + [id], lineage: lineage, collector: &collector, collectsTasks: collectsTasks)
        case .run(let run):
            let collecting = run.immediate == nil && collectsTasks ? Self.made(&collector, lineage) : nil
            startLater(effect, origin: origin, ids: ids, lineage: lineage, collector: collecting)
        case .concatenate(let effects):
            // Its opening sends now, in order, before any action other work sends later.
            let opening = effects.prefix { $0.isSynchronous }
            for effect in opening {
                start(effect, origin: origin, ids: ids, lineage: lineage, collector: &collector, collectsTasks: collectsTasks)
            }
            guard opening.count < effects.count else { return }
            let rest = Effect(.concatenate(Array(effects[opening.count...])))
            startLater(rest, origin: origin, ids: ids, lineage: lineage, collector: collectsTasks ? Self.made(&collector, lineage) : nil)
        case .throttle:
            startLater(effect, origin: origin, ids: ids, lineage: lineage, collector: collectsTasks ? Self.made(&collector, lineage) : nil)
        }
    }

    /// `collector`, made for `lineage` if there is none yet.
    @inlinable
    static func made(_ collector: inout Completion?, _ lineage: Lineage) -> Completion {
        if let collector { return collector }
        let made = Completion(lineage: lineage)
        collector = made
        return made
    }

    /// Keeps `effect` to start once the store is idle (``startPending()``).
    @inlinable
    func startLater(_ effect: Effect<Action>, origin: Action, ids: [EffectID], lineage: Lineage, collector: Completion?) {
        guard !lineage.isCancelled else { return }
        lineage.enter()
        collector?.expectStart()
        lock.lock()
        registry.pointee.liveCount += 1
        pending.append(PendingStart(effect: effect, origin: origin, ids: ids, lineage: lineage, collector: collector))
        pendingCount.store(pending.count, ordering: .relaxed)
        lock.unlock()
    }

    /// Starts the kept work, oldest first, on this thread until none is left, unless a thread is
    /// doing so already (which then starts this too).
    @inlinable
    func startPending() {
        // None kept (what this thread kept, it counted), or a starter will take it.
        if pendingCount.load(ordering: .relaxed) == 0 || isStartingPending.load(ordering: .acquiring) { return }
        lock.lock()
        guard !isStartingPending.load(ordering: .relaxed), !pending.isEmpty else {
            lock.unlock()
            return
        }
        isStartingPending.store(true, ordering: .relaxed)
        startKeptAndStop()
    }

    /// Runs task-less `work` for `origin` at once, as ``startPending()`` would if it were kept: for
    /// an action whose whole effect it is, sent to an idle store.
    @inlinable
    func startAtOnce(_ work: @escaping @Sendable (Send<Action>) throws -> Void, of run: Effect<Action>.Run, origin: Action, lineage: Lineage) -> Bool {
        // Claimed without the lock: whoever keeps work meanwhile and reads the claim leaves it
        // to `startKeptAndStop()`, which looks under the lock before it lets go.
        guard isStartingPending.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else { return false }
        runImmediately(work, of: run, origin: origin, ids: [], lineage: lineage)
        lock.lock()
        startKeptAndStop()
        return true
    }

    /// Starts the kept work until none is left, then stops being the starter; the lock is held on
    /// entry and released on return.
    @inlinable
    func startKeptAndStop() {
        // Every piece starts (runs to its first suspension) before any resumes: the tasks' jobs
        // wait in this thread's drain of the executor, behind the starts, as TCA starts effects
        // before their awaits return. What the jobs keep, this loop starts next, still the
        // starter: a chain of round trips stays a loop.
        let claimed = executor.claim()
        startEachKept()
        if claimed {
            while true {
                lock.unlock()
                executor.runQueued()
                lock.lock()
                if pending.isEmpty { break }
                startEachKept()
            }
        }
        stopStarting()
        if claimed { executor.release() }
    }

    /// Starts the kept work until none is left; the lock is held on entry and on return.
    @inlinable
    func startEachKept() {
        while let item = pending.popFirst() {
            pendingCount.store(pending.count, ordering: .relaxed)
            lock.unlock()
            begin(item)
            lock.lock()
            // Started, the work counts as itself now (or has ended already).
            registry.pointee.liveCount -= 1
        }
    }

    /// Stops being the starter; the lock is held on entry and released on return.
    @inlinable
    func stopStarting() {
        let ended = Ended(waiters: registry.pointee.liveCount == 0 ? registry.pointee.idleWaiters.takeAll() : [])
        isStartingPending.store(false, ordering: .releasing)
        lock.unlock()
        ended.announce(activity)
    }

    @inlinable
    func begin(_ item: PendingStart) {
        var task: Task<Void, Never>?
        if case .run(let run) = item.effect.operation {
            if let immediate = run.immediate {
                runImmediately(immediate, of: run, origin: item.origin, ids: item.ids, lineage: item.lineage)
            } else {
                // The task runs the work itself, not a closure around it: each async closure
                // level costs the effect a check of its executor preference.
                let outlet = EffectOutlet(runner: self, origin: item.origin, lineage: item.lineage)
                task = launch(outlet, ids: item.ids, priority: run.priority, startInline: true) { key in
                    { [self] in await perform(run, through: outlet, finishing: key) }
                }
            }
        } else {
            let (effect, origin, ids, lineage) = (item.effect, item.origin, item.ids, item.lineage)
            task = spawn(origin: origin, ids: ids, lineage: lineage, priority: nil) { [self] in
                await execute(effect, origin: origin, ids: ids, lineage: lineage)
            }
        }
        item.collector?.started(task)
        item.lineage.leave()
    }

    /// Drops the kept work `isDropped` picks, which stops counting as running (lock held): when
    /// nothing is left running, `ended` takes the idle waiters.
    @inlinable
    func takePending(from registry: inout EffectRegistry, ending ended: inout Ended, where isDropped: (PendingStart) -> Bool)
        -> [PendingStart]
    {
        guard !pending.isEmpty else { return [] }
        var taken: [PendingStart] = []
        var kept = RingBuffer<PendingStart>()
        while let item = pending.popFirst() {
            if isDropped(item) { taken.append(item) } else { kept.append(item) }
        }
        pending = kept
        pendingCount.store(pending.count, ordering: .relaxed)
        registry.liveCount -= taken.count
        if !taken.isEmpty, registry.liveCount == 0 { ended.waiters += registry.idleWaiters.takeAll() }
        return taken
    }

    /// Kept work dropped before it started (no longer counted): nobody waits for it any more.
    @inlinable
    func dropped(_ items: [PendingStart]) {
        for item in items {
            item.collector?.started(nil)
            item.lineage.leave()
        }
    }
}
