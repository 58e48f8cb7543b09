import AppEnvironment
import Models
import StateStore

/// The top of the profile screen: the signed-in user's profile, as a transducer.
public enum Profile: Transducer {
    /// Where the profile stands.
    public enum State: Hashable, Sendable, Codable {
        /// Nothing requested yet.
        case initialized
        /// A request is in flight.
        case loading
        /// The profile arrived.
        case loaded(User)
        /// The request failed.
        case failed(AppError)
    }

    /// Requests and responses.
    public enum Command: Hashable, Sendable, Codable {
        /// Ask for the profile (also how a failed load is retried).
        case load
        /// The profile arrived.
        case loaded(User)
        /// The request failed.
        case failed(AppError)
    }

    /// Work the machine asks for.
    public enum Effect: Hashable, Sendable {
        /// Fetch the profile.
        case load
    }

    /// The transition for `command` in `state`.
    public static func reduce(_ state: State, _ command: Command) -> Transition<State, Effect> {
        switch (command, state) {
        case (.load, .initialized), (.load, .loaded), (.load, .failed):
            .to(.loading, effect: .load)
        case (.load, .loading):
            .rejected("the profile is already loading")
        case (.loaded(let user), .loading):
            .to(.loaded(user))
        case (.failed(let error), .loading):
            .to(.failed(error))
        case (.loaded, .initialized), (.loaded, .loaded), (.loaded, .failed),
            (.failed, .initialized), (.failed, .loaded), (.failed, .failed):
            .rejected("no profile request is in flight")
        }
    }

    /// The machine as a reducer that loads the profile of the session holding `token`.
    public static func reducer(client: ProfileClient, token: AccessToken) -> TransducerReducer<Profile> {
        TransducerReducer(
            Profile.self,
            interactor: Interactor(respond: { effect in
                switch effect {
                case .load:
                    switch await Outcome(catching: { () async throws(AppError) in try await client.load(token) }) {
                    case .success(let user): .loaded(user)
                    case .failure(let error): .failed(error)
                    }
                }
            }))
    }
}

extension Profile.Command: FeatureAction {
    /// The failed load this command reports.
    public var failure: AppError? {
        switch self {
        case .failed(let error): error
        case .load, .loaded: nil
        }
    }

    /// Never: a profile holds no secret.
    public var carriesSecret: Bool { false }

    /// None: a profile does not grow with the data.
    public var payloadBytes: Int { 0 }
}
