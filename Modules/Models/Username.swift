/// The name a person signs in with, as typed.
///
/// Any text can be held (the user is still typing); ``isValid`` says whether it may be used to
/// sign in or sign up. Usernames are unique regardless of case (``normalized``).
public struct Username: Hashable, Sendable, Codable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The fewest characters a valid username has.
    public static let minimumLength = 8

    /// The text as typed.
    public let rawValue: String

    /// Holds `rawValue` as typed.
    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    /// Holds a literal username.
    public init(stringLiteral value: String) {
        self.init(value)
    }

    /// Whether the username has at least ``minimumLength`` characters and is not all whitespace.
    public var isValid: Bool {
        rawValue.count >= Self.minimumLength && !isAllWhitespace
    }

    /// Why the username cannot be used, or `nil` when it is valid.
    public var problem: String? {
        if isAllWhitespace && !rawValue.isEmpty {
            return "A username cannot be only spaces."
        }
        if rawValue.count < Self.minimumLength {
            return "A username needs at least \(Self.minimumLength) characters (it has \(rawValue.count))."
        }
        return nil
    }

    /// Whether every character is whitespace (so is the empty username), read from the bytes
    /// while they are ASCII: the login screen asks on every keystroke.
    private var isAllWhitespace: Bool {
        for byte in rawValue.utf8 {
            if byte >= 0x80 { return rawValue.allSatisfy(\.isWhitespace) }
            if byte != 0x20, !(0x09...0x0D).contains(byte) { return false }
        }
        return true
    }

    /// The form used to compare usernames: lowercased, so "Alice" and "alice" are one account.
    public var normalized: String { rawValue.lowercased() }

    /// Whether nothing was typed.
    public var isEmpty: Bool { rawValue.isEmpty }

    /// The username itself: usernames are not secret.
    public var description: String { rawValue }

    /// Decodes a plain string.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    /// Encodes a plain string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
