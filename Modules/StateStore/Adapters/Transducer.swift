/// A feature written as an explicit state machine: a static, pure function from a state and a
/// command to the next state and an optional effect *descriptor*.
///
/// Requests and responses are separate commands (`load`, then `loaded(user)` or `failed(error)`),
/// and the effect is a plain value (`.load`) that an ``Interactor`` turns into work. Every
/// (state, command) pair has an answer; pairs the machine does not accept return
/// ``Transition/rejected(_:)``, which changes nothing and is reported as an
/// ``Diagnostic/Kind/invalidTransition`` diagnostic.
///
/// ```swift
/// enum ProfileMachine: Transducer {
///     enum State: Equatable, Sendable { case initialized, loading, loaded(User), failed(String) }
///     enum Command: Equatable, Sendable { case load, loaded(User), failed(String) }
///     enum Effect: Equatable, Sendable { case load }
///
///     static func reduce(_ state: State, _ command: Command) -> Transition<State, Effect> {
///         switch (state, command) {
///         case (.initialized, .load), (.loaded, .load), (.failed, .load): .to(.loading, effect: .load)
///         case (.loading, .load): .to(.loading)
///         case (.loading, .loaded(let user)): .to(.loaded(user))
///         case (.loading, .failed(let message)): .to(.failed(message))
///         case (_, .loaded), (_, .failed): .rejected("no request is in flight")
///         }
///     }
/// }
/// ```
///
/// A ``TransducerReducer`` runs it in a store, with an ``Interactor`` that turns `.load` into the
/// request and its response into `.loaded` or `.failed`:
///
/// ```swift
/// let store = RootStore(
///     initialState: .initialized,
///     reducer: TransducerReducer(ProfileMachine.self, interactor: profileInteractor))
/// ```
public protocol Transducer {
    /// The machine's states.
    associatedtype State: Sendable
    /// The inputs: requests from the user and responses from effects.
    associatedtype Command: Sendable
    /// Descriptions of side effects to perform.
    associatedtype Effect: Sendable

    /// The transition for `command` in `state`. Must be pure.
    static func reduce(_ state: State, _ command: Command) -> Transition<State, Effect>
}

/// The outcome of one transducer step.
public enum Transition<State: Sendable, Effect: Sendable>: Sendable {
    /// Move to `state` and perform `effect`, if any.
    case to(State, effect: Effect? = nil)
    /// The command is not valid in the current state: nothing changes, and `reason` is reported.
    case rejected(_ reason: String)
}

/// Turns a transducer's effect descriptors into work, feeding the results back as commands.
public struct Interactor<Effect: Sendable, Command: Sendable>: Sendable {
    @usableFromInline let perform: @Sendable (Effect, Send<Command>) async throws -> Void

    /// An interactor that may send any number of commands for an effect.
    ///
    /// A thrown error is reported as an unhandled effect error; model expected failures as
    /// commands (`failed(…)`) instead.
    public init(_ perform: @escaping @Sendable (_ effect: Effect, _ send: Send<Command>) async throws -> Void) {
        self.perform = perform
    }

    /// An interactor that answers each effect with at most one command.
    public init(respond: @escaping @Sendable (_ effect: Effect) async -> Command?) {
        perform = { effect, send in
            if let command = await respond(effect) { send(command) }
        }
    }
}

/// Runs a ``Transducer`` as a ``Reducer``, so it can drive a store like any other feature.
public struct TransducerReducer<Machine: Transducer>: Reducer {
    @usableFromInline let interactor: Interactor<Machine.Effect, Machine.Command>

    /// Runs `machine`, performing its effects with `interactor`.
    @inlinable public init(_ machine: Machine.Type = Machine.self, interactor: Interactor<Machine.Effect, Machine.Command>) {
        self.interactor = interactor
    }

    /// Applies the machine's transition for `action`.
    @inlinable public func reduce(into state: inout Machine.State, action: Machine.Command) -> StateStore.Effect<Machine.Command> {
        switch Machine.reduce(state, action) {
        case .to(let next, let effect):
            state = next
            guard let effect else { return .none }
            let perform = interactor.perform
            return .run { send in try await perform(effect, send) }
        case .rejected(let reason):
            return .diagnostic(.invalidTransition(action: action, state: state, reason: reason))
        }
    }
}
