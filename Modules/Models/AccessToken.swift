import Foundation

/// The bearer token a signed-in session presents to the clients.
public struct AccessToken: Hashable, Sendable, Codable {
    private let value: String

    /// Wraps a token value issued by the auth client.
    public init(_ value: String) {
        self.value = value
    }

    /// The token's text, for the clients that must present or check it.
    public var revealed: String { value }

    /// Whether the token is empty: what a journal restores in place of a real one.
    public var isEmpty: Bool { value.isEmpty }

    /// Decodes `null` as an empty token and a string as that token.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        value = container.decodeNil() ? "" : try container.decode(String.self)
    }

    /// Encodes `null`: a token is never written out.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encodeNil()
    }
}

extension AccessToken: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `<redacted>`.
    public var description: String { Redacted.text }
    /// `AccessToken(<redacted>)`.
    public var debugDescription: String { "AccessToken(\(Redacted.text))" }
    /// A mirror with no children, so `dump` shows nothing of the token.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

/// A signed-in user and the token that proves it.
public struct AuthSession: Hashable, Sendable, Codable {
    /// Who signed in.
    public var user: User
    /// What the clients must be shown on the user's behalf.
    public var token: AccessToken
    /// When the token stops being accepted; `nil` when it does not expire.
    public var expiresAt: Date?

    /// Pairs a user with their token, valid until `expiresAt`.
    public init(user: User, token: AccessToken, expiresAt: Date? = nil) {
        self.user = user
        self.token = token
        self.expiresAt = expiresAt
    }
}
