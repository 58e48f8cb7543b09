import Models
import StateStore

/// A count that goes up and down but never below zero.
public struct Counter: Reducer {
    /// The count.
    public struct State: Hashable, Sendable, Codable {
        /// The current count, zero or more.
        public var count: Int

        /// A counter at `count`.
        public init(count: Int = 0) {
            self.count = count
        }
    }

    /// What the user can do to the count.
    public enum Action: Hashable, Sendable, Codable {
        /// Add one.
        case incrementTapped
        /// Take one away; rejected at zero.
        case decrementTapped
        /// Back to zero.
        case resetTapped
    }

    /// A counter.
    public init() {}

    /// Applies one counter action.
    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .incrementTapped:
            state.count += 1
        case .decrementTapped:
            guard state.count > 0 else {
                return .diagnostic(.invalidTransition(action: action, state: state, reason: "the count cannot go below zero"))
            }
            state.count -= 1
        case .resetTapped:
            state.count = 0
        }
        return .none
    }
}

extension Counter.Action: FeatureAction {
    /// Never: the counter calls no client.
    public var failure: AppError? { nil }

    /// Never: the counter holds no secret.
    public var carriesSecret: Bool { false }

    /// None: a count does not grow with the data.
    public var payloadBytes: Int { 0 }
}
