import Synchronization

extension StoreRuntime {
    // MARK: - Action observers

    func observeActions(_ callback: @escaping @Sendable (Action, State) -> Void) -> StoreSubscription {
        observeActions(wantsState: nil) { action, state in
            // Never `nil`: this subscriber always wants the state.
            if let state { callback(action, state) }
        }
    }

    /// Calls `callback` after each action, with the state when `wantsState` said so beforehand
    /// (`nil`: always): copying the whole state costs more than the rest of a notification.
    func observeActions(wantsState: (@Sendable () -> Bool)?, _ callback: @escaping @Sendable (Action, State?) -> Void) -> StoreSubscription {
        let id = StateNode<State>.nextSubscriberID()
        lock.withLock { core.pointee.actionSubscribers.insert(ActionSubscriber(callback: callback, wantsState: wantsState), id: id) }
        let handle = handle
        return StoreSubscription {
            guard let runtime = handle.runtime else { return }
            runtime.lock.withLock { _ = runtime.core.pointee.actionSubscribers.remove(id: id) }
        }
    }

    // MARK: - The serial path

    /// Reduces a queued action, notifies, starts its effects.
    @inlinable
    func reduce(_ action: Action, completion: Completion?, lineage: Lineage) {
        guard let reduce = syncReduce else {
            asyncMailbox?.yield((action, completion ?? Completion(lineage: nil)))
            return
        }
        lock.lock()
        let keepsBytes = rememberBytesBefore()
        reducingThread.store(ThreadIdentity.current.raw, ordering: .relaxed)
        let effect = reduce(&core.pointee.state, action)
        reducingThread.store(0, ordering: .relaxed)
        // Kept bytes mean observers (and the copy is let go by the notification).
        let isObserved = keepsBytes || rootNode.isObserved || !core.pointee.actionSubscribers.isEmpty
        unlockAndNotify(after: action, isObserved: isObserved, bytesKept: keepsBytes)
        if !effect.isNone {
            var collector = completion
            effects.start(effect, origin: action, lineage: lineage, collector: &collector, collectsTasks: completion != nil)
        }
        if let completion {
            completion.resolve()
        } else {
            lineage.leave()
        }
    }

    /// Applies the state an async reducer computed for `action`, on the serial path.
    @usableFromInline
    func commit(_ newState: State, after action: Action, completion: Completion) {
        schedule { [self] in
            replaceState(newState, after: action)
            completion.resolve()
        }
    }

    /// Puts `newState` in place and notifies; action observers hear only of an action's state. An
    /// equal state is no change, as after a synchronous reducer.
    func replaceState(_ newState: State, after action: Action?) {
        lock.lock()
        let bytesKept = rememberBytesBefore()
        core.pointee.state = newState
        unlockAndNotify(after: action, bytesKept: bytesKept)
    }

    /// Reduces what was queued while this thread worked until the queue is empty, then delivers
    /// what the burst owes scoped stores and Observation.
    @inlinable
    func drain() {
        var reducedWhileOwing = 0
        while true {
            lock.lock()
            let item = core.pointee.queue.popFirst()
            if !core.pointee.owed.isEmpty {
                if case .action = item, reducedWhileOwing < Self.settlingInterval {
                    reducedWhileOwing += 1
                } else {
                    reducedWhileOwing = 0
                    settleOwed()
                    guard item != nil else { continue }
                    lock.lock()
                }
            }
            guard let item else {
                core.pointee.mode.stopDraining()
                lock.unlock()
                // The work the burst's effects asked for starts now, with the store idle.
                effects.startPending()
                return
            }
            lock.unlock()
            switch item {
            case .action(let action, let completion, let lineage):
                reduce(action, completion: completion, lineage: lineage)
            case .job(let job):
                job()
            }
        }
    }

    /// How many actions a burst reduces at most before its owed notifications are delivered.
    @usableFromInline static var settlingInterval: Int { 256 }

    /// Settles the owed nodes (lock held), releases the lock, and delivers what they took.
    @inlinable
    func settleOwed() {
        takeOwed()
        lock.unlock()
        deliverTaken()
    }

    /// Settles the owed nodes into `settling`.
    @inlinable
    func takeOwed() {
        swap(&core.pointee.owed, &core.pointee.settling)
        for delivery in core.pointee.settling { delivery.node.settle(delivery.node) }
    }

    /// Delivers what `takeOwed()` settled.
    @inlinable
    func deliverTaken() {
        for delivery in core.pointee.settling {
            delivery.node.tellRegistrarIfOwed()
            delivery.node.deliverSettled(delivery.node)
        }
        core.pointee.settling.removeAll(keepingCapacity: true)
    }

    /// Copies the state aside when anyone will compare bytes with it; returns whether it did.
    @inlinable
    func rememberBytesBefore() -> Bool {
        // `isObserved` first: one load on the path of a store nobody observes.
        guard rootNode.isObserved,
            rootNode.hasByteReadingChildren || (skipsRepeats && (rootNode.firstSubscriber != nil || rootNode.isTracked))
        else { return false }
        // Sound: `stateBefore` is uninitialized here, and initialized until `collectNotification`.
        stateBefore.initialize(to: core.pointee.state)
        return true
    }

    /// Collects what `action`'s change owes to observers, releases the lock, then delivers it.
    @inlinable
    func unlockAndNotify(after action: Action?, bytesKept: Bool, settles: Bool = false) {
        let notification = collectNotification(after: action, bytesKept: bytesKept)
        let settling = settles && !core.pointee.owed.isEmpty
        if settling { takeOwed() }
        if notification.handsOutState {
            let state = core.pointee.state
            lock.unlock()
            notification.deliver(after: action, handing: state)
        } else {
            lock.unlock()
            notification.deliver(after: action)
        }
        if settling { deliverTaken() }
    }

    /// ``unlockAndNotify(after:bytesKept:settles:)`` when anyone observes; otherwise only unlocks.
    @inlinable
    func unlockAndNotify(after action: Action, isObserved: Bool, bytesKept: Bool, settles: Bool = false) {
        guard isObserved else {
            lock.unlock()
            return
        }
        unlockAndNotify(after: action, bytesKept: bytesKept, settles: settles)
    }

    /// What the change just made owes to observers; `bytesKept` when `rememberBytesBefore()`
    /// copied the state as it was before it (the copy is let go here).
    @inlinable
    func collectNotification(after action: Action?, bytesKept: Bool = false) -> Notification {
        let node = rootNode
        // Neither the subscribers of an `Equatable` state nor Observation hear of an action that
        // left it equal: one that left its bytes as they were changed nothing (the copy before
        // it held every buffer, so none changed in place), and `==` tells about the others.
        let isUnchanged =
            bytesKept && (node.firstSubscriber != nil || node.isTracked) && stateEquality?.same(stateBefore, stateBytes) == true
        if node.isTracked, !node.isOwed, !isUnchanged {
            node.isOwed = true
            core.pointee.owed.append(Delivery(node))
        }
        if !node.children.isEmpty {
            let before = bytesKept ? UnsafeRawPointer(stateBefore) : nil
            for child in node.children {
                child.update(stateBytes, before, &core.pointee.owed)
            }
        }
        let subscribersHear = node.firstSubscriber != nil && !isUnchanged
        if bytesKept { stateBefore.deinitialize(count: 1) }
        // The state is copied out only when someone is handed it.
        let isStateHandedOut =
            subscribersHear
            || (action != nil && core.pointee.actionSubscribers.entries.contains { $0.subscriber.wantsState?() ?? true })
        return Notification(
            handsOutState: isStateHandedOut,
            firstSubscriber: subscribersHear ? node.firstSubscriber : nil,
            otherSubscribers: subscribersHear ? node.otherSubscribers.entries : [],
            actionSubscribers: action == nil ? [] : core.pointee.actionSubscribers.entries
        )
    }
}
