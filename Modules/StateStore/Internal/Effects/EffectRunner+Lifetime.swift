import Synchronization

extension EffectRunner {
    // MARK: - Cancelling

    @inlinable
    func cancel(id: EffectID) {
        let (tasks, ended, dropped) = withRegistry { registry -> ([Task<Void, Never>], Ended, [PendingStart]) in
            var (tasks, ended) = registry.keysByID[id].map { registry.cancel($0) } ?? ([], Ended())
            let dropped = takePending(from: &registry, ending: &ended) { $0.ids.contains(id) }
            return (tasks, ended, dropped)
        }
        tasks.forEach { $0.cancel() }
        ended.announce(activity)
        self.dropped(dropped)
        // Task-less work running up this thread's stack sends nothing more.
        ImmediateEffect.cancelRunning(id: id, of: self)
    }

    @usableFromInline
    func cancelEffects(of lineage: Lineage) {
        let (tasks, ended, dropped) = withRegistry { registry -> ([Task<Void, Never>], Ended, [PendingStart]) in
            var (tasks, ended) = registry.cancel(registry.running.compactMap { entry in entry.flatMap { $0.lineage === lineage ? $0.key : nil } })
            let dropped = takePending(from: &registry, ending: &ended) { $0.lineage === lineage }
            return (tasks, ended, dropped)
        }
        tasks.forEach { $0.cancel() }
        ended.announce(activity)
        self.dropped(dropped)
    }

    /// Cancels every running effect; effects started later are cancelled at once.
    func shutDown() {
        let (tasks, ended, dropped) = withRegistry { registry -> ([Task<Void, Never>], Ended, [PendingStart]) in
            hasShutDown.store(true, ordering: .relaxed)
            var (tasks, ended) = registry.cancel(registry.running.compactMap { $0.map(\.key) })
            let dropped = takePending(from: &registry, ending: &ended) { _ in true }
            return (tasks, ended, dropped)
        }
        tasks.forEach { $0.cancel() }
        ended.announce(activity)
        self.dropped(dropped)
    }

    // MARK: - Inspecting

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
