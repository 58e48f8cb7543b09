/// Work a reducer asks the store to do after it changed the state.
public struct Effect<Action: Sendable>: Sendable {
    @usableFromInline
    indirect enum Operation: Sendable {
        case none
        case send(Action)
        case make(@Sendable () -> Action)
        case run(Run)
        case merge([Effect])
        case concatenate([Effect])
        case cancellable(EffectID, cancelInFlight: Bool, Effect)
        case cancel(EffectID)
        case throttle(Throttle)
        case diagnostic(Diagnostic)
    }

    @usableFromInline
    struct Run: Sendable {
        @usableFromInline var priority: TaskPriority?
        @usableFromInline var body: nonisolated(nonsending) @Sendable (Send<Action>) async throws -> Void
        @usableFromInline var onError: (nonisolated(nonsending) @Sendable (any Error, Send<Action>) async -> Void)?
        /// The work itself when it cannot suspend: then it runs without a task.
        @usableFromInline var immediate: (@Sendable (Send<Action>) throws -> Void)?

        @inlinable
        init(
            priority: TaskPriority?, body: nonisolated(nonsending) @escaping @Sendable (Send<Action>) async throws -> Void,
            onError: (nonisolated(nonsending) @Sendable (any Error, Send<Action>) async -> Void)?,
            immediate: (@Sendable (Send<Action>) throws -> Void)? = nil
        ) {
            self.priority = priority
            self.body = body
            self.onError = onError
            self.immediate = immediate
        }
    }

    @usableFromInline
    struct Throttle: Sendable {
        @usableFromInline var id: EffectID
        @usableFromInline var interval: Duration
        @usableFromInline var latest: Bool
        @usableFromInline var clock: ErasedClock
        @usableFromInline var effect: Effect

        @inlinable
        init(id: EffectID, interval: Duration, latest: Bool, clock: ErasedClock, effect: Effect) {
            self.id = id
            self.interval = interval
            self.latest = latest
            self.clock = clock
            self.effect = effect
        }
    }

    @usableFromInline let operation: Operation

    @inlinable
    init(_ operation: Operation) {
        self.operation = operation
    }

    @inlinable
    var isNone: Bool {
        if case .none = operation { return true }
        return false
    }

    /// Whether the effect is done as it starts: no work, no task (a send, a cancellation).
    @inlinable
    var isSynchronous: Bool {
        switch operation {
        case .none, .send, .make, .cancel, .diagnostic: true
        case .run, .merge, .concatenate, .cancellable, .throttle: false
        }
    }

    // MARK: - Building effects

    /// An effect that does nothing.
    @inlinable
    public static var none: Effect { Effect(.none) }

    /// Feeds `action` back into the store right after the current action.
    @inlinable
    public static func send(_ action: Action) -> Effect {
        Effect(.send(action))
    }

    /// Feeds back an action made when the effect starts, not when the reducer returns it.
    @inlinable
    public static func send(_ makeAction: @escaping @Sendable () -> Action) -> Effect {
        Effect(.make(makeAction))
    }

    /// Runs asynchronous work that may send any number of actions.
    @inlinable
    public static func run(
        priority: TaskPriority? = nil,
        operation: nonisolated(nonsending) @escaping @Sendable (_ send: Send<Action>) async throws -> Void,
        catch handler: (nonisolated(nonsending) @Sendable (_ error: any Error, _ send: Send<Action>) async -> Void)? = nil
    ) -> Effect {
        Effect(.run(Run(priority: priority, body: operation, onError: handler)))
    }

    /// Runs work that cannot suspend (its closure has no `await`), which may send any number of actions.
    @inlinable
    public static func run(
        priority: TaskPriority? = nil,
        operation: @escaping @Sendable (_ send: Send<Action>) throws -> Void,
        catch handler: (nonisolated(nonsending) @Sendable (_ error: any Error, _ send: Send<Action>) async -> Void)? = nil
    ) -> Effect {
        Effect(.run(Run(priority: priority, body: { send in try operation(send) }, onError: handler, immediate: operation)))
    }

    /// Runs every effect at once.
    @inlinable
    public static func merge(_ effects: Effect...) -> Effect {
        merge(effects)
    }

    /// Runs every effect at once.
    @inlinable
    public static func merge(_ effects: some Sequence<Effect>) -> Effect {
        let effects = effects.filter { !$0.isNone }
        switch effects.count {
        case 0: return .none
        case 1: return effects[0]
        default: return Effect(.merge(effects))
        }
    }

    /// Runs this effect and `other` at once.
    @inlinable
    public func merge(with other: Effect) -> Effect {
        if isNone { return other }
        if other.isNone { return self }
        return Effect(.merge([self, other]))
    }

    /// Runs the effects one after another, each starting when the previous one finished.
    public static func concatenate(_ effects: Effect...) -> Effect {
        concatenate(effects)
    }

    /// Runs the effects one after another, each starting when the previous one finished.
    public static func concatenate(_ effects: some Sequence<Effect>) -> Effect {
        let effects = effects.filter { !$0.isNone }
        switch effects.count {
        case 0: return .none
        case 1: return effects[0]
        default: return Effect(.concatenate(effects))
        }
    }

    /// Runs this effect, then `other`.
    public func concatenate(with other: Effect) -> Effect {
        Effect.concatenate([self, other])
    }

    /// Reports a runtime warning through the store's ``Diagnostics``.
    @inlinable
    public static func diagnostic(_ diagnostic: Diagnostic) -> Effect {
        Effect(.diagnostic(diagnostic))
    }

    // MARK: - Cancellation

    /// Makes this effect cancellable by ``cancel(id:)``.
    @inlinable
    public func cancellable(id: some Hashable & Sendable, cancelInFlight: Bool = false) -> Effect {
        if isNone && !cancelInFlight { return self }
        return Effect(.cancellable(EffectID(id), cancelInFlight: cancelInFlight, self))
    }

    /// Cancels every running effect made cancellable with `id`.
    @inlinable
    public static func cancel(id: some Hashable & Sendable) -> Effect {
        Effect(.cancel(EffectID(id)))
    }

    /// This effect made cancellable by `id`, an id made once by a reducer that uses it for
    /// every effect of a child (making one per effect allocates).
    @inlinable
    func cancellable(_ id: EffectID) -> Effect {
        if isNone { return self }
        return Effect(.cancellable(id, cancelInFlight: false, self))
    }

    // MARK: - Timing

    /// Delays this effect by `duration`, restarting the delay whenever another effect with the
    /// same `id` arrives first: only the last of a burst runs.
    public func debounce(id: some Hashable & Sendable, for duration: Duration, clock: any Clock<Duration>) -> Effect {
        Effect.concatenate([
            .run { _ in try await clock.sleep(for: duration) },
            self,
        ])
        .cancellable(id: id, cancelInFlight: true)
    }

    /// Lets through at most one effect with `id` per `interval`.
    public func throttle<C: Clock>(
        id: some Hashable & Sendable, for interval: Duration, clock: C, latest: Bool
    ) -> Effect where C.Duration == Duration {
        Effect(
            .throttle(
                Throttle(
                    id: EffectID(id), interval: interval, latest: latest,
                    clock: ErasedClock(clock), effect: self)))
    }

    // MARK: - Transforming

    /// Transforms the actions this effect sends — how a parent embeds a child feature's effects.
    @inlinable
    public func map<NewAction: Sendable>(_ transform: @escaping @Sendable (Action) -> NewAction) -> Effect<NewAction> {
        switch operation {
        case .none:
            return .none
        case .send(let action):
            return .send(transform(action))
        case .make(let make):
            return Effect<NewAction>(.make { transform(make()) })
        case .run(let run):
            let body = run.body
            let mappedBody: nonisolated(nonsending) @Sendable (Send<NewAction>) async throws -> Void = { send in
                try await body(send.map(transform))
            }
            var mappedOnError: (nonisolated(nonsending) @Sendable (any Error, Send<NewAction>) async -> Void)?
            if let onError = run.onError {
                mappedOnError = { error, send in await onError(error, send.map(transform)) }
            }
            var mappedImmediate: (@Sendable (Send<NewAction>) throws -> Void)?
            if let immediate = run.immediate {
                mappedImmediate = { send in try immediate(send.map(transform)) }
            }
            return Effect<NewAction>(
                .run(
                    Effect<NewAction>.Run(
                        priority: run.priority, body: mappedBody, onError: mappedOnError, immediate: mappedImmediate)))
        case .merge(let effects):
            return Effect<NewAction>(.merge(effects.map { $0.map(transform) }))
        case .concatenate(let effects):
            return Effect<NewAction>(.concatenate(effects.map { $0.map(transform) }))
        case .cancellable(let id, let cancelInFlight, let effect):
            return Effect<NewAction>(.cancellable(id, cancelInFlight: cancelInFlight, effect.map(transform)))
        case .cancel(let id):
            return Effect<NewAction>(.cancel(id))
        case .throttle(let throttle):
            return Effect<NewAction>(
                .throttle(
                    .init(
                        id: throttle.id, interval: throttle.interval,
                        latest: throttle.latest, clock: throttle.clock, effect: throttle.effect.map(transform))))
        case .diagnostic(let diagnostic):
            return Effect<NewAction>(.diagnostic(diagnostic))
        }
    }
}

extension Effect {
    /// This effect with its actions transformed, telling those sent at once from those its running
    /// work produces later: what the explorer needs to hold responses as choices.
    package func mapForExploration<NewAction: Sendable>(
        sent: @escaping @Sendable (Action) -> NewAction,
        produced: @escaping @Sendable (Action, [EffectID]) -> NewAction,
        cancelled: @escaping @Sendable (EffectID) -> NewAction,
        ids: [EffectID] = []
    ) -> Effect<NewAction> {
        func map(_ effect: Effect, ids: [EffectID] = ids) -> Effect<NewAction> {
            effect.mapForExploration(sent: sent, produced: produced, cancelled: cancelled, ids: ids)
        }
        switch operation {
        case .none:
            return .none
        case .send(let action):
            return .send(sent(action))
        case .make(let make):
            return Effect<NewAction>(.make { sent(make()) })
        case .run:
            return self.map { produced($0, ids) }
        case .merge(let effects):
            return Effect<NewAction>(.merge(effects.map { map($0) }))
        case .concatenate(let effects):
            return Effect<NewAction>(.concatenate(effects.map { map($0) }))
        case .cancellable(let id, let cancelInFlight, let effect):
            let inner = Effect<NewAction>(.cancellable(id, cancelInFlight: cancelInFlight, map(effect, ids: ids + [id])))
            return cancelInFlight ? .merge(.send(cancelled(id)), inner) : inner
        case .cancel(let id):
            return .merge(.send(cancelled(id)), Effect<NewAction>(.cancel(id)))
        case .throttle:
            return self.map { produced($0, ids) }
        case .diagnostic(let diagnostic):
            return Effect<NewAction>(.diagnostic(diagnostic))
        }
    }
}

/// Sends actions from a running effect back into its store.
public struct Send<Action: Sendable>: Sendable {
    @usableFromInline let deliver: @Sendable (Action) -> Void
    /// Whether the current task's cancellation drops the action: not for work run without a
    /// task of its own, whose cancellation is its lineage's (checked by `deliver`).
    @usableFromInline let followsTaskCancellation: Bool

    /// Creates a sender that hands each action to `deliver`.
    @inlinable
    public init(_ deliver: @escaping @Sendable (Action) -> Void) {
        self.deliver = deliver
        followsTaskCancellation = true
    }

    @inlinable
    init(followsTaskCancellation: Bool, _ deliver: @escaping @Sendable (Action) -> Void) {
        self.deliver = deliver
        self.followsTaskCancellation = followsTaskCancellation
    }

    /// Sends `action`, unless the current task has been cancelled.
    @inlinable
    public func callAsFunction(_ action: Action) {
        if followsTaskCancellation, Task.isCancelled { return }
        deliver(action)
    }

    @inlinable
    func map<Child: Sendable>(_ transform: @escaping @Sendable (Child) -> Action) -> Send<Child> {
        let deliver = self.deliver
        return Send<Child>(followsTaskCancellation: followsTaskCancellation) { deliver(transform($0)) }
    }
}

/// A type-erased, hashable, sendable identifier of cancellable effects.
@usableFromInline
package struct EffectID: Hashable, Sendable {
    // Not `AnyHashable`: making one asks the runtime whether the type has a custom
    // representation, a conformance lookup on every cancellable effect a reducer returns.
    // Hashed when used as a key, not when made: a replayed reducer makes ids it never uses.
    @usableFromInline let box: EffectIDBox

    @inlinable
    init<Base: Hashable & Sendable>(_ base: Base) {
        box = TypedEffectIDBox(base)
    }

    @inlinable
    package static func == (lhs: EffectID, rhs: EffectID) -> Bool {
        lhs.box === rhs.box || lhs.box.isEqual(to: rhs.box)
    }

    @inlinable
    package func hash(into hasher: inout Hasher) {
        box.hash(into: &hasher)
    }
}

/// The value of an ``EffectID``, compared only with values of its own type.
@usableFromInline
class EffectIDBox: @unchecked Sendable {
    @usableFromInline
    init() {}

    @usableFromInline
    func isEqual(to other: EffectIDBox) -> Bool { false }

    @usableFromInline
    func hash(into hasher: inout Hasher) {}
}

@usableFromInline
final class TypedEffectIDBox<Base: Hashable & Sendable>: EffectIDBox, @unchecked Sendable {
    @usableFromInline let base: Base

    @inlinable
    init(_ base: Base) {
        self.base = base
        super.init()
    }

    @inlinable
    override func isEqual(to other: EffectIDBox) -> Bool {
        guard let other = other as? TypedEffectIDBox<Base> else { return false }
        return base == other.base
    }

    @inlinable
    override func hash(into hasher: inout Hasher) {
        hasher.combine(base)
    }
}

/// The three clock operations throttling needs, erased from the clock's instant type.
@usableFromInline
struct ErasedClock: Sendable {
    let now: @Sendable () -> any Sendable
    /// Time from a boxed instant to now, or `nil` when the instant came from another clock type.
    let elapsed: @Sendable (_ since: any Sendable) -> Duration?
    /// Sleeps until `interval` after a boxed instant.
    let sleep: @Sendable (_ after: any Sendable, _ interval: Duration) async throws -> Void

    init<C: Clock>(_ clock: C) where C.Duration == Duration {
        now = { clock.now }
        elapsed = { since in
            guard let since = since as? C.Instant else { return nil }
            return since.duration(to: clock.now)
        }
        sleep = { after, interval in
            guard let after = after as? C.Instant else { return }
            try await clock.sleep(until: after.advanced(by: interval), tolerance: nil)
        }
    }
}

extension Task where Success == Never, Failure == Never {
    /// Cancels, at once, the effects with `id` of the store whose effect calls this — as The
    /// Composable Architecture's `Task.cancel(id:)` does.
    public static func cancel<ID: Hashable & Sendable>(id: ID) {
        // An effect's task prefers its store's executor, which knows the store's effects; the
        // effect's own task is among those cancelled when it has `id`.
        guard let executor = EffectExecutor.current else {
            ImmediateEffect.current?.cancel(id: EffectID(id))
            return
        }
        executor.owner?.cancel(id: EffectID(id))
    }
}
