import Foundation

extension Intent {
    /// The longest JSON intent ``init(jsonLine:)`` reads, in bytes (1 MiB): a note's text fits
    /// many times over, and a front end can refuse a longer line before holding it.
    public static let maximumJSONLength = 1 << 20

    /// Reads one intent from a line of JSON: `{"addNote":{"text":"milk"}}`.
    ///
    /// The error says what is wrong — where the JSON breaks, which intent is unknown, which
    /// field is missing or of the wrong type — and never repeats the line, which may hold a
    /// password.
    public init(jsonLine bytes: some Collection<UInt8>) throws(IntentJSONError) {
        guard bytes.count <= Self.maximumJSONLength else {
            throw IntentJSONError("the line is longer than \(Self.maximumJSONLength) bytes, the most an intent may have")
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
