@usableFromInline
struct RunningEffect {
    @usableFromInline var task: Task<Void, Never>?
    @usableFromInline var ids: [EffectID]
    /// Where the effect sends, which knows the action whose effect this is.
    @usableFromInline let outlet: any EffectOrigin
    @usableFromInline let lineage: Lineage
    @usableFromInline var isCancelled = false
    /// When it started, relative to the others: slots are reused, so they do not tell.
    @usableFromInline let sequence: UInt64
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

    var origin: any Sendable { outlet.originAction }
}

@usableFromInline
struct EffectRegistry {
    @usableFromInline var nextSequence: UInt64 = 0
    /// What runs, by key: a slot, free again once its effect finished.
    @usableFromInline var running: [RunningEffect?] = []
    @usableFromInline var freeSlots: [Int] = []
    @usableFromInline var keysByID: [EffectID: Set<UInt64>] = [:]
    @usableFromInline var throttleWindows: [EffectID: any Sendable] = [:]
    @usableFromInline var idleWaiters = Waiters()
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

    @inlinable
    func slot(of key: UInt64) -> Int? {
        let slot = Int(truncatingIfNeeded: key & 0xFFFF_FFFF)
        guard slot < running.count, running[slot]?.key == key else { return nil }
        return slot
    }

    @inlinable
    mutating func keep(_ task: Task<Void, Never>, for key: UInt64) {
        guard let slot = slot(of: key) else { return }
        running[slot]?.task = task
    }

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

/// Who must hear that effects stopped running, once the lock is released: waiters first.
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
