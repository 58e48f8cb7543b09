import Models

/// The signed-in user's profile and posts.
public struct ProfileClient: Sendable {
    /// The user's profile.
    public var load: @Sendable (_ token: AccessToken) async throws(AppError) -> User
    /// The user's posts, newest first.
    public var loadPosts: @Sendable (_ token: AccessToken) async throws(AppError) -> [Post]
    /// Publishes a post and returns it as stored.
    public var addPost: @Sendable (_ token: AccessToken, _ text: String) async throws(AppError) -> Post

    /// Creates a client from its endpoints.
    public init(
        load: @escaping @Sendable (_ token: AccessToken) async throws(AppError) -> User,
        loadPosts: @escaping @Sendable (_ token: AccessToken) async throws(AppError) -> [Post],
        addPost: @escaping @Sendable (_ token: AccessToken, _ text: String) async throws(AppError) -> Post
    ) {
        self.load = load
        self.loadPosts = loadPosts
        self.addPost = addPost
    }

    /// A client whose every endpoint reports the call as unexpected and fails.
    public static func failing(_ reporter: UnexpectedCallReporter = .standardError) -> ProfileClient {
        ProfileClient(
            load: { _ throws(AppError) in throw unexpected(.profileLoad, reporter) },
            loadPosts: { _ throws(AppError) in throw unexpected(.profileLoadPosts, reporter) },
            addPost: { _, _ throws(AppError) in throw unexpected(.profileAddPost, reporter) }
        )
    }

    /// A client that does nothing: no posts.
    public static let noop = ProfileClient(
        load: { _ throws(AppError) in throw noService(.profileLoad) },
        loadPosts: { _ in [] },
        addPost: { _, _ throws(AppError) in throw noService(.profileAddPost) }
    )

    /// This client with `hook` run before each call.
    public func intercepting(_ hook: @escaping EndpointHook) -> ProfileClient {
        let base = self
        return ProfileClient(
            load: { token throws(AppError) in
                try await hook(.profileLoad)
                return try await base.load(token)
            },
            loadPosts: { token throws(AppError) in
                try await hook(.profileLoadPosts)
                return try await base.loadPosts(token)
            },
            addPost: { token, text throws(AppError) in
                try await hook(.profileAddPost)
                return try await base.addPost(token, text)
            }
        )
    }
}
