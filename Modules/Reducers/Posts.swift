import AppEnvironment
import Models
import StateStore

/// The bottom of the profile screen: the user's posts, loaded and added, as a transducer.
public enum Posts: Transducer {
    /// The list and the post being written.
    public struct State: Hashable, Sendable, Codable {
        /// Where the list stands.
        public var phase: Phase
        /// The post being published, or the one that failed to be.
        public var draft: Draft?

        /// A posts state; nothing requested by default.
        public init(phase: Phase = .initialized, draft: Draft? = nil) {
            self.phase = phase
            self.draft = draft
        }
    }

    /// Where the list stands.
    public enum Phase: Hashable, Sendable, Codable {
        /// Nothing requested yet.
        case initialized
        /// A request is in flight.
        case loading
        /// The posts arrived, newest first.
        case loaded([Post])
        /// The request failed.
        case failed(AppError)
    }

    /// A post on its way to being published.
    public struct Draft: Hashable, Sendable, Codable {
        /// What the user wrote: kept until the post is published.
        public var text: String
        /// Whether it failed to publish; `nil` while sending.
        public var error: AppError?

        /// A draft of `text`.
        public init(text: String, error: AppError? = nil) {
            self.text = text
            self.error = error
        }

        /// Whether the draft is being published right now.
        public var isSending: Bool { error == nil }
    }

    /// Requests and responses.
    public enum Command: Hashable, Sendable, Codable {
        /// Ask for the posts (also how a failed load is retried).
        case load
        /// The posts arrived.
        case loaded([Post])
        /// The request failed.
        case failed(AppError)
        /// Publish a post with this text.
        case add(String)
        /// The post was published.
        case added(Post)
        /// Publishing failed.
        case addFailed(AppError)
    }

    /// Work the machine asks for.
    public enum Effect: Hashable, Sendable {
        /// Fetch the posts.
        case load
        /// Publish a post.
        case add(String)
    }

    /// The transition for `command` in `state`.
    public static func reduce(_ state: State, _ command: Command) -> Transition<State, Effect> {
        var next = state
        switch (command, state.phase) {
        case (.load, .loading):
            return .rejected("the posts are already loading")
        case (.load, .initialized), (.load, .loaded), (.load, .failed):
            if state.draft?.isSending == true { return .rejected("wait until the post being published is done") }
            next.phase = .loading
            return .to(next, effect: .load)
        case (.loaded(let posts), .loading):
            next.phase = .loaded(posts)
            return .to(next)
        case (.failed(let error), .loading):
            next.phase = .failed(error)
            return .to(next)
        case (.loaded, .initialized), (.loaded, .loaded), (.loaded, .failed),
            (.failed, .initialized), (.failed, .loaded), (.failed, .failed):
            return .rejected("no posts request is in flight")
        case (.add(let text), .loaded):
            if let problem = Post.problem(with: text) { return .rejected(problem) }
            if state.draft?.isSending == true { return .rejected("a post is already being published") }
            next.draft = Draft(text: text)
            return .to(next, effect: .add(text))
        case (.add, .initialized), (.add, .loading), (.add, .failed):
            return .rejected("the posts are not loaded yet; load them first")
        case (.added(let post), .loaded(let posts)):
            guard state.draft?.isSending == true else { return .rejected("no post is being published") }
            next.draft = nil
            next.phase = .loaded([post] + posts)
            return .to(next)
        case (.addFailed(let error), .loaded):
            guard var draft = state.draft, draft.isSending else { return .rejected("no post is being published") }
            draft.error = error
            next.draft = draft
            return .to(next)
        case (.added, .initialized), (.added, .loading), (.added, .failed),
            (.addFailed, .initialized), (.addFailed, .loading), (.addFailed, .failed):
            return .rejected("no post is being published")
        }
    }

    /// The machine as a reducer that loads and publishes the posts of the session holding `token`.
    public static func reducer(client: ProfileClient, token: AccessToken) -> TransducerReducer<Posts> {
        TransducerReducer(
            Posts.self,
            interactor: Interactor(respond: { effect in
                switch effect {
                case .load:
                    switch await Outcome(catching: { () async throws(AppError) in try await client.loadPosts(token) }) {
                    case .success(let posts): .loaded(posts)
                    case .failure(let error): .failed(error)
                    }
                case .add(let text):
                    switch await Outcome(catching: { () async throws(AppError) in try await client.addPost(token, text) }) {
                    case .success(let post): .added(post)
                    case .failure(let error): .addFailed(error)
                    }
                }
            }))
    }
}

extension Posts.Command: FeatureAction {
    /// The failed load or publication this command reports.
    public var failure: AppError? {
        switch self {
        case .failed(let error), .addFailed(let error): error
        case .load, .loaded, .add, .added: nil
        }
    }

    /// Never: posts hold no secret.
    public var carriesSecret: Bool { false }

    /// The text of the posts it carries.
    public var payloadBytes: Int {
        switch self {
        case .add(let text): text.utf8.count
        case .added(let post): post.text.utf8.count
        case .loaded(let posts): posts.reduce(0) { $0 + MemoryLayout<Post>.stride + $1.text.utf8.count }
        case .load, .failed, .addFailed: 0
        }
    }
}
