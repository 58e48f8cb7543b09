/// A person with an account.
public struct User: Hashable, Sendable, Codable, Identifiable {
    /// A user's identifier.
    public typealias ID = Identifier<User>

    /// The account's identifier.
    public var id: ID
    /// The name the user signs in with.
    public var username: Username
    /// The name shown to others.
    public var displayName: String
    /// A few words about the user; may be empty.
    public var bio: String

    /// Creates a user; the display name defaults to the username.
    public init(id: ID, username: Username, displayName: String? = nil, bio: String = "") {
        self.id = id
        self.username = username
        self.displayName = displayName ?? username.rawValue
        self.bio = bio
    }
}
