import Foundation

/// Something a user published on their profile.
public struct Post: Hashable, Sendable, Codable, Identifiable {
    /// A post's identifier.
    public typealias ID = Identifier<Post>

    /// The longest text a post may have, in characters.
    public static let maximumLength = 10_000

    /// The post's identifier.
    public var id: ID
    /// Who wrote it.
    public var authorID: User.ID
    /// What it says.
    public var text: String
    /// When it was published.
    public var createdAt: Date

    /// Creates a post.
    public init(id: ID, authorID: User.ID, text: String, createdAt: Date) {
        self.id = id
        self.authorID = authorID
        self.text = text
        self.createdAt = createdAt
    }

    /// Why `text` cannot be published, or `nil` when it can.
    public static func problem(with text: String) -> String? {
        if text.allSatisfy(\.isWhitespace) { return "A post needs some text." }
        if text.count > maximumLength { return "A post can have at most \(maximumLength) characters (it has \(text.count))." }
        return nil
    }
}
