import Foundation

/// A typed identifier: `Identifier<Note>` and `Identifier<User>` cannot be mixed up.
///
/// Printed and parsed as a lowercase UUID (`"00000000-0000-0000-0000-000000000001"`) and encoded
/// as that string.
public struct Identifier<Owner>: Hashable, Sendable, Comparable, Codable, CustomStringConvertible {
    /// The UUID behind the identifier.
    public let rawValue: UUID

    /// Wraps `rawValue`.
    public init(_ rawValue: UUID) {
        self.rawValue = rawValue
    }

    /// Parses a UUID string in either case; `nil` when `string` is not one.
    public init?(_ string: String) {
        guard let uuid = UUID(uuidString: string) else { return nil }
        rawValue = uuid
    }

    /// The lowercase UUID string.
    public var description: String { rawValue.uuidString.lowercased() }

    /// Orders identifiers by their UUID string, for stable listings.
    public static func < (lhs: Identifier, rhs: Identifier) -> Bool {
        lhs.rawValue.uuidString < rhs.rawValue.uuidString
    }

    /// Decodes the UUID string.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(UUID.self)
    }

    /// Encodes the UUID string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
