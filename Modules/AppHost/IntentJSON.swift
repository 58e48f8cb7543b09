import Foundation

extension Intent {
    /// The longest JSON intent ``init(jsonLine:)`` reads, in bytes (1 MiB).
    public static let maximumJSONLength = 1 << 20

    /// Reads one intent from a line of JSON: `{"addNote":{"text":"milk"}}`.
    public init(jsonLine bytes: some Collection<UInt8>) throws(IntentJSONError) {
        guard bytes.count <= Self.maximumJSONLength else {
            throw IntentJSONError("the line is longer than \(Self.maximumJSONLength) bytes, the most an intent may have")
        }
        // A well-formed intent is read directly; anything else goes through Foundation, whose
        // errors say what is wrong.
        if let intent = Self.readDirectly(bytes) {
            self = intent
            return
        }
        let data = Data(bytes)
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            throw IntentJSONError(Self.syntaxProblem(error))
        }
        guard let fields = object as? [String: Any] else {
            throw IntentJSONError("an intent is a JSON object with one key, the intent's name: {\"increment\":{}}")
        }
        guard fields.count == 1, let name = fields.keys.first else {
            throw IntentJSONError("an intent is a JSON object with exactly one key, the intent's name; this one has \(fields.count)")
        }
        do {
            self = try JSONDecoder().decode(Intent.self, from: data)
        } catch let error as DecodingError {
            throw IntentJSONError(Self.problem(error, name: name))
        } catch {
            throw IntentJSONError("it is not an intent")
        }
    }

    /// The intent of a well-formed line, read without Foundation; `nil` for any other line.
    package static func readDirectly(_ bytes: some Collection<UInt8>) -> Intent? {
        var line = IntentLine(Array(bytes))
        return line.intent()
    }

    /// Where the JSON breaks, from the parser's error, without any of the text.
    private static func syntaxProblem(_ error: any Error) -> String {
        let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? ""
        if let range = detail.range(of: #"character \d+"#, options: .regularExpression) {
            let offset = detail[range].dropFirst("character ".count)
            return "it is not valid JSON (at byte \(offset))"
        }
        if detail.contains("end of file") { return "it is not valid JSON (it ends too soon)" }
        return "it is not valid JSON"
    }

    /// What a decoding error says about the intent, naming fields but no values.
    private static func problem(_ error: DecodingError, name: String) -> String {
        // Names are shown only when they look like names: a key may be anything a client sent.
        let shown = name.count <= 40 && name.allSatisfy { $0.isASCII && $0.isLetter } ? "“\(name)”" : "(its name is not shown)"
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map(\.stringValue).filter { $0.isEmpty || !$0.hasPrefix("_") }.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context):
            let place = path(context)
            return "\(shown) needs the field “\(key.stringValue)”" + (place.isEmpty || place == name ? "" : " in \(place)")
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            let place = path(context)
            guard !place.isEmpty else { return "there is no intent \(shown)" }
            return "the field “\(place)” must be \(Self.kind(type))"
        case .dataCorrupted(let context):
            let place = path(context)
            return place.isEmpty ? "there is no intent \(shown)" : "the field “\(place)” has a value that is not valid there"
        @unknown default:
            return "it is not an intent"
        }
    }

    private static func kind(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type, is Double.Type: "a number"
        case is Bool.Type: "true or false"
        default: "an object of the right shape"
        }
    }
}

/// Why a line is not an intent, in one sentence that never repeats the line.
public struct IntentJSONError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The sentence.
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// A line read as a well-formed intent (`{"addNote":{"text":"milk"}}`) the way `JSONDecoder` reads
/// it; `nil` for anything else, which is left to it.
private struct IntentLine {
    let bytes: [UInt8]
    var position = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func intent() -> Intent? {
        guard take(UInt8(ascii: "{")), let name = string(), take(UInt8(ascii: ":")), let kind = Intent.Kind(rawValue: name),
            take(UInt8(ascii: "{"))
        else { return nil }
        let spec = kind.spec
        var values = [Intent.Argument?](repeating: nil, count: spec.parameters.count)
        if !take(UInt8(ascii: "}")) {
            repeat {
                guard let key = string(), take(UInt8(ascii: ":")),
                    let index = spec.parameters.firstIndex(where: { $0.label == key }), values[index] == nil
                else { return nil }
                switch spec.parameters[index].value {
                case .text, .secret:
                    guard let text = string() else { return nil }
                    values[index] = .text(text)
                case .note, .optionalNote:
                    if takeNull() {
                        values[index] = .note(nil)
                    } else {
                        guard let text = string(), let id = Note.ID(text) else { return nil }
                        values[index] = .note(id)
                    }
                }
            } while take(UInt8(ascii: ","))
            guard take(UInt8(ascii: "}")) else { return nil }
        }
        guard take(UInt8(ascii: "}")) else { return nil }
        skipSpace()
        guard position == bytes.count else { return nil }
        // A missing id of an optional note is none; any other missing field is an error to tell.
        var arguments: [Intent.Argument] = []
        for (parameter, value) in zip(spec.parameters, values) {
            if let value {
                arguments.append(value)
            } else if parameter.value == .optionalNote {
                arguments.append(.note(nil))
            } else {
                return nil
            }
        }
        return try? spec.make(Intent.Arguments(values: arguments))
    }

    private mutating func skipSpace() {
        while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
    }

    /// Takes `byte`, after any white space.
    private mutating func take(_ byte: UInt8) -> Bool {
        skipSpace()
        guard position < bytes.count, bytes[position] == byte else { return false }
        position += 1
        return true
    }

    private mutating func takeNull() -> Bool {
        skipSpace()
        guard bytes[position...].starts(with: "null".utf8) else { return false }
        position += 4
        return true
    }

    /// A string, its escapes read; `nil` when there is none here or it is not valid.
    private mutating func string() -> String? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        var text: [UInt8] = []
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                // Only valid UTF-8 is read here.
                return String(validating: text, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard position < bytes.count else { return nil }
                let escaped = bytes[position]
                position += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(escaped)
                case UInt8(ascii: "b"): text.append(0x08)
                case UInt8(ascii: "f"): text.append(0x0C)
                case UInt8(ascii: "n"): text.append(0x0A)
                case UInt8(ascii: "r"): text.append(0x0D)
                case UInt8(ascii: "t"): text.append(0x09)
                case UInt8(ascii: "u"):
                    guard let unit = hexUnit() else { return nil }
                    var scalar: Unicode.Scalar?
                    if UTF16.isLeadSurrogate(unit) {
                        guard take(UInt8(ascii: "\\")), position < bytes.count, bytes[position] == UInt8(ascii: "u") else { return nil }
                        position += 1
                        guard let trail = hexUnit(), UTF16.isTrailSurrogate(trail) else { return nil }
                        scalar = Unicode.Scalar(0x10000 + (UInt32(unit - 0xD800) << 10) + UInt32(trail - 0xDC00))
                    } else if !UTF16.isTrailSurrogate(unit) {
                        scalar = Unicode.Scalar(unit)
                    }
                    guard let scalar else { return nil }
                    text.append(contentsOf: String(scalar).utf8)
                default: return nil
                }
            case 0..<0x20:
                return nil
            default:
                text.append(byte)
            }
        }
        return nil
    }

    private mutating func hexUnit() -> UInt16? {
        guard position + 4 <= bytes.count else { return nil }
        var unit: UInt16 = 0
        for byte in bytes[position..<(position + 4)] {
            guard let digit = Character(Unicode.Scalar(byte)).hexDigitValue else { return nil }
            unit = unit << 4 | UInt16(digit)
        }
        position += 4
        return unit
    }
}
