import Foundation

/// A typed identifier: `Identifier<Note>` and `Identifier<User>` cannot be mixed up.
public struct Identifier<Owner>: Hashable, Sendable, Comparable, Codable, CustomStringConvertible {
    /// The UUID behind the identifier.
    public let rawValue: UUID

    /// Wraps `rawValue`.
    public init(_ rawValue: UUID) {
        self.rawValue = rawValue
    }

    /// Parses a UUID string (8-4-4-4-12 hexadecimal digits) in either case.
    public init?(_ string: String) {
        // Read by hand: `UUID(uuidString:)` goes through `sscanf`, which cost more than the rest
        // of reading a note from the database, and on Linux also reads a space or a sign inside a
        // group as something else.
        var high: UInt64 = 0
        var low: UInt64 = 0
        var position = 0
        for byte in string.utf8 {
            defer { position += 1 }
            if position == 8 || position == 13 || position == 18 || position == 23 {
                guard byte == UInt8(ascii: "-") else { return nil }
                continue
            }
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            // The 16 digits before the hyphen at 18 are the high half, the 16 after it the low one.
            if position < 18 {
                high = high << 4 | UInt64(digit)
            } else {
                guard position < 36 else { return nil }
                low = low << 4 | UInt64(digit)
            }
        }
        guard position == 36 else { return nil }
        rawValue = UUID(bits: (high, low))
    }

    /// The lowercase UUID string.
    public var description: String {
        // Formatted by hand: `uuidString.lowercased()` costs a C formatter and a case pass.
        let (high, low) = bits
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for place in 0..<32 {
            if place == 8 || place == 12 || place == 16 || place == 20 { text.append(UInt8(ascii: "-")) }
            let half = place < 16 ? high : low
            let digit = UInt8(truncatingIfNeeded: half >> UInt64((15 - place % 16) * 4)) & 0x0F
            text.append(digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10)
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The UUID's 128 bits as two integers, most significant first.
    public var bits: (high: UInt64, low: UInt64) {
        let u = rawValue.uuid
        let high =
            UInt64(u.0) << 56 | UInt64(u.1) << 48 | UInt64(u.2) << 40 | UInt64(u.3) << 32
            | UInt64(u.4) << 24 | UInt64(u.5) << 16 | UInt64(u.6) << 8 | UInt64(u.7)
        let low =
            UInt64(u.8) << 56 | UInt64(u.9) << 48 | UInt64(u.10) << 40 | UInt64(u.11) << 32
            | UInt64(u.12) << 24 | UInt64(u.13) << 16 | UInt64(u.14) << 8 | UInt64(u.15)
        return (high, low)
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
        guard let id = Identifier(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "“\(text)” is not a UUID")
        }
        self = id
    }

    /// Encodes the lowercase UUID string, as ``description`` prints it.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

extension UUID {
    /// The UUID of 128 bits, most significant half first.
    package init(bits: (high: UInt64, low: UInt64)) {
        let (h, l) = bits
        self.init(
            uuid: (
                UInt8(truncatingIfNeeded: h >> 56), UInt8(truncatingIfNeeded: h >> 48), UInt8(truncatingIfNeeded: h >> 40),
                UInt8(truncatingIfNeeded: h >> 32), UInt8(truncatingIfNeeded: h >> 24), UInt8(truncatingIfNeeded: h >> 16),
                UInt8(truncatingIfNeeded: h >> 8), UInt8(truncatingIfNeeded: h), UInt8(truncatingIfNeeded: l >> 56),
                UInt8(truncatingIfNeeded: l >> 48), UInt8(truncatingIfNeeded: l >> 40), UInt8(truncatingIfNeeded: l >> 32),
                UInt8(truncatingIfNeeded: l >> 24), UInt8(truncatingIfNeeded: l >> 16), UInt8(truncatingIfNeeded: l >> 8),
                UInt8(truncatingIfNeeded: l)
            ))
    }
}
