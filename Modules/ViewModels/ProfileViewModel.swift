import Models
import Observation
import Reducers
import StateStore

/// The profile screen.
public final class ProfileViewModel: ViewModel {
    /// Where the screen as a whole stands.
    public enum Status: String, CaseIterable, Hashable, Sendable, Codable {
        /// Nothing requested yet.
        case initialized
        /// Something is loading.
        case loading
        /// Everything is loaded.
        case loaded
        /// Something failed to load.
        case failed
    }

    /// One row of the screen.
    public enum Row: Hashable, Sendable, Codable {
        /// The profile's header.
        case header(displayName: String, username: String, bio: String)
        /// A post, newest first.
        case post(id: Post.ID, text: String, publishedAt: String)
        /// The post being published, or the one that failed to be (with its error).
        case draft(text: String, isSending: Bool, errorMessage: String?)
        /// A spinner.
        case loading
        /// Something failed; `canRetry` says whether retrying can help.
        case error(message: String, canRetry: Bool)
    }

    /// Everything the profile screen shows.
    public struct Snapshot: Hashable, Sendable, Codable {
        /// Where the screen stands.
        public var status: Status
        /// The rows, top to bottom.
        public var rows: [Row]
        /// How many posts are loaded.
        public var postCount: Int
        /// Whether adding a post is possible now.
        public var canAddPost: Bool

        /// The snapshot of a profile and its posts.
        public init(profile: Profile.State, posts: Posts.State) {
            var rows: [Row] = []
            var loadedPosts: [Post] = []
            var errors: [AppError] = []
            if case .loaded(let user) = profile {
                rows.append(.header(displayName: user.displayName, username: user.username.rawValue, bio: user.bio))
            }
            if let draft = posts.draft {
                rows.append(.draft(text: draft.text, isSending: draft.isSending, errorMessage: draft.error?.message))
            }
            if case .loaded(let list) = posts.phase {
                loadedPosts = list
                rows += list.map { .post(id: $0.id, text: $0.text, publishedAt: Display.dateTime($0.createdAt)) }
            }
            if case .failed(let error) = profile { errors.append(error) }
            if case .failed(let error) = posts.phase { errors.append(error) }
            let isLoading = profile == .loading || posts.phase == .loading
            if isLoading { rows.append(.loading) }
            if let error = errors.first {
                rows.append(.error(message: error.message, canRetry: error != .sessionExpired && error != .notSignedIn))
            }
            status =
                if isLoading { .loading } else if !errors.isEmpty { .failed } else if profile == .initialized && posts.phase == .initialized {
                    .initialized
                } else { .loaded }
            self.rows = rows
            postCount = loadedPosts.count
            canAddPost = if case .loaded = posts.phase { posts.draft?.isSending != true } else { false }
        }
    }

    /// The signed-in user's profile and posts in the app's store (none while signed out), and
    /// their screen.
    public static let feature = FeatureScreen<ProfileScreen, AppFeature.Action, Snapshot>(
        scope: { appStore in
            // An action that leaves the account alone is skipped unread.
            appStore.scope(deriving: { ProfileScreen(profile: $0.profile, posts: $0.posts) }, reading: \.account, action: { $0 })
        },
        snapshot: { $0.profileSnapshot })

    private let screen: Store<ProfileScreen, AppFeature.Action>
    /// The store the view model reads, scoped to its snapshot.
    public let store: Store<Snapshot, AppFeature.Action>

    /// The view model of the app's profile screen.
    public init(appStore: Store<AppFeature.State, AppFeature.Action>) {
        screen = Self.feature.scope(appStore)
        store = screen.scope(deriving: Self.feature.snapshot, action: { $0 })
    }

    /// Load the profile and the posts.
    @discardableResult
    public func load() -> StoreTask {
        let profile = store.send(.profile(.load))
        let posts = store.send(.posts(.load))
        return StoreTask(combining: [profile, posts])
    }

    /// Load again what failed.
    @discardableResult
    public func retry() -> StoreTask {
        let state = screen.currentState
        let retries = SignedIn.retries(profile: state.profile, posts: state.posts)
        return StoreTask(combining: retries.map { store.send(AppFeature.Action.userPath.embed($0)) })
    }

    /// Publish a post (also how a failed one is sent again).
    @discardableResult
    public func addPost(_ text: String) -> StoreTask { store.send(.posts(.add(text))) }
}

/// The parts of the app state the profile screen shows.
public struct ProfileScreen: Hashable, Sendable {
    /// The profile.
    public var profile: Profile.State
    /// The posts.
    public var posts: Posts.State

    /// What the profile screen shows for these parts.
    public var profileSnapshot: ProfileViewModel.Snapshot { ProfileViewModel.Snapshot(profile: profile, posts: posts) }
}

extension ProfileViewModel: HostedViewModel {}
