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
        let digits: StaticString = "0123456789abcdef"
        return withUnsafeBytes(of: rawValue.uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { text in
                var written = 0
                for (offset, byte) in bytes.enumerated() {
                    if offset == 4 || offset == 6 || offset == 8 || offset == 10 {
                        text[written] = UInt8(ascii: "-")
                        written += 1
                    }
                    text[written] = digits.utf8Start[Int(byte >> 4)]
                    text[written + 1] = digits.utf8Start[Int(byte & 0x0F)]
                    written += 2
                }
                return written
            }
        }
    }

    /// The UUID's 128 bits as two integers, most significant first.
    public var bits: (high: UInt64, low: UInt64) {
        withUnsafeBytes(of: rawValue.uuid) { bytes in
            var high: UInt64 = 0
            var low: UInt64 = 0
            for offset in 0..<8 {
                high = high << 8 | UInt64(bytes[offset])
                low = low << 8 | UInt64(bytes[offset + 8])
            }
            return (high, low)
        }
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
