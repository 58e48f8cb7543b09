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
    public var description: String {
        // Formatted by hand: `uuidString.lowercased()` costs a C formatter and a case pass.
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (offset, byte) in Self.bytes(of: rawValue).enumerated() {
            if offset == 4 || offset == 6 || offset == 8 || offset == 10 { text.append(UInt8(ascii: "-")) }
            text.append(Self.hexDigit(byte >> 4))
            text.append(Self.hexDigit(byte & 0x0F))
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The UUID's 128 bits as two integers, most significant first.
    public var bits: (high: UInt64, low: UInt64) {
        let bytes = Self.bytes(of: rawValue)
        var high: UInt64 = 0
        var low: UInt64 = 0
        for offset in 0..<8 {
            high = high << 8 | UInt64(bytes[offset])
            low = low << 8 | UInt64(bytes[offset + 8])
        }
        return (high, low)
    }

    /// The UUID's 16 bytes, in order.
    private static func bytes(of uuid: UUID) -> [UInt8] {
        let u = uuid.uuid
        return [u.0, u.1, u.2, u.3, u.4, u.5, u.6, u.7, u.8, u.9, u.10, u.11, u.12, u.13, u.14, u.15]
    }

    /// The lowercase hexadecimal digit of `value` (0–15).
    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }

    /// Orders identifiers by their UUID string (the same order as their bytes), for stable
    /// listings.
    public static func < (lhs: Identifier, rhs: Identifier) -> Bool {
        let (left, right) = (lhs.bits, rhs.bits)
        return left.high != right.high ? left.high < right.high : left.low < right.low
    }

    /// Decodes a UUID string in either case.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let uuid = UUID(uuidString: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "“\(text)” is not a UUID")
        }
        rawValue = uuid
    }

    /// Encodes the lowercase UUID string, as ``description`` prints it.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
