/// A password as typed: its text is reachable only through ``revealed``.
public struct Password: Hashable, Sendable, Codable, ExpressibleByStringLiteral {
    /// The fewest characters a valid password has.
    public static let minimumLength = 8

    private let clearText: String

    /// Holds `clearText`.
    public init(_ clearText: String) {
        self.clearText = clearText
    }

    /// Holds a literal password (tests and examples).
    public init(stringLiteral value: String) {
        self.init(value)
    }

    /// The password's text, for the one place that must check it (the auth client).
    public var revealed: String { clearText }

    /// How many characters were typed, for a masked field.
    public var count: Int { clearText.count }

    /// Whether nothing was typed.
    public var isEmpty: Bool { clearText.isEmpty }

    /// Whether the password has at least ``minimumLength`` characters.
    public var isValid: Bool { clearText.count >= Self.minimumLength }

    /// Why the password cannot be used, or `nil` when it is valid.
    public var problem: String? {
        isValid
            ? nil
            : "A password needs at least \(Self.minimumLength) characters."
    }

    /// Decodes `null` as an empty password and a string as that password.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        clearText = container.decodeNil() ? "" : try container.decode(String.self)
    }

    /// Encodes `null`: a password is never written out.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encodeNil()
    }
}

extension Password: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `<redacted>`.
    public var description: String { Redacted.text }
    /// `Password(<redacted>)`.
    public var debugDescription: String { "Password(\(Redacted.text))" }
    /// A mirror with no children, so `dump` shows nothing of the text.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

enum Redacted {
    static let text = "<redacted>"
}
