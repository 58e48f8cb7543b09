/// A feature written as an explicit state machine.
public protocol Transducer {
    /// The machine's states.
    associatedtype State: Sendable
    /// The inputs: requests from the user and responses from effects.
    associatedtype Command: Sendable
    /// Descriptions of side effects to perform.
    associatedtype Effect: Sendable

    /// The transition for `command` in `state`.
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
