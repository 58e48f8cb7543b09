import Foundation

/// The name a person signs in with, as typed.
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

    /// Whether the username may be used: ``problem`` is `nil`.
    public var isValid: Bool {
        var count = 0
        for byte in rawValue.utf8 {
            guard byte < 0x80 else { return problem == nil }
            // A space or a control character: never valid.
            guard (0x21...0x7E).contains(byte) else { return false }
            count += 1
        }
        return count >= Self.minimumLength
    }

    /// Why the username cannot be used, or `nil` when it is valid.
    public var problem: String? {
        if rawValue.utf8.allSatisfy({ $0 < 0x80 }) { return asciiProblem }
        if !rawValue.isEmpty, rawValue.allSatisfy(\.isWhitespace) {
            return "A username cannot be only spaces."
        }
        if rawValue.count < Self.minimumLength {
            return "A username needs at least \(Self.minimumLength) characters (it has \(rawValue.count))."
        }
        var alphabets: Set<Alphabet> = []
        for scalar in rawValue.unicodeScalars {
            let properties = scalar.properties
            if properties.isWhitespace {
                return "A username cannot contain spaces, tabs or line breaks."
            }
            switch properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .privateUse, .surrogate, .unassigned:
                return "A username cannot contain invisible or control characters (it has U+\(Self.hex(scalar)))."
            default:
                if properties.isDefaultIgnorableCodePoint || properties.isNoncharacterCodePoint {
                    return "A username cannot contain invisible or control characters (it has U+\(Self.hex(scalar)))."
                }
            }
            if properties.isAlphabetic, let alphabet = Alphabet(scalar) { alphabets.insert(alphabet) }
        }
        if alphabets.count > 1 {
            let names = alphabets.map(\.rawValue).sorted().joined(separator: " and ")
            return "A username cannot mix letters of different alphabets (it has \(names)), which look alike."
        }
        return nil
    }

    /// ``problem`` of an ASCII username, told from its bytes (the sign-in screen asks at every
    /// keystroke): the same answers, in the same order, as the general rule.
    private var asciiProblem: String? {
        let bytes = rawValue.utf8
        let isSpace = { (byte: UInt8) in byte == 0x20 || (0x09...0x0D).contains(byte) }
        if !bytes.isEmpty, bytes.allSatisfy(isSpace) { return "A username cannot be only spaces." }
        // Characters, as the general rule counts them ("\r\n" is one).
        let characters = rawValue.count
        if characters < Self.minimumLength {
            return "A username needs at least \(Self.minimumLength) characters (it has \(characters))."
        }
        for byte in bytes {
            if isSpace(byte) { return "A username cannot contain spaces, tabs or line breaks." }
            if byte < 0x20 || byte == 0x7F {
                return "A username cannot contain invisible or control characters (it has U+\(Self.hex(Unicode.Scalar(byte))))."
            }
        }
        return nil
    }

    /// The alphabets whose letters look alike, and so may not be mixed in one username.
    private enum Alphabet: String {
        case latin = "Latin", greek = "Greek", cyrillic = "Cyrillic"

        init?(_ scalar: Unicode.Scalar) {
            switch scalar.value {
            case 0x41...0x5A, 0x61...0x7A, 0xC0...0x24F, 0x1E00...0x1EFF, 0x2C60...0x2C7F, 0xA720...0xA7FF, 0xAB30...0xAB6F, 0xFF21...0xFF3A,
                0xFF41...0xFF5A:
                self = .latin
            case 0x370...0x3FF, 0x1F00...0x1FFF: self = .greek
            case 0x400...0x52F, 0x1C80...0x1C8F, 0x2DE0...0x2DFF, 0xA640...0xA69F: self = .cyrillic
            default: return nil
            }
        }
    }

    private static func hex(_ scalar: Unicode.Scalar) -> String {
        let digits = String(scalar.value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// The form usernames are compared in.
    public var normalized: String {
        if rawValue.utf8.allSatisfy({ $0 < 0x80 }) { return rawValue.lowercased() }
        var narrowed = ""
        for scalar in rawValue.unicodeScalars {
            // The Halfwidth and Fullwidth Forms block: each maps to its plain form alone (RFC
            // 8265's width mapping), which compatibility normalization of that one character gives.
            if (0xFF00...0xFFEF).contains(scalar.value) {
                narrowed += String(scalar).precomposedStringWithCompatibilityMapping
            } else {
                narrowed.unicodeScalars.append(scalar)
            }
        }
        return narrowed.lowercased().precomposedStringWithCanonicalMapping
    }

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
