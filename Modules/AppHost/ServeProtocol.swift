import Foundation
import Models
import ViewModels

/// The JSON-lines protocol of `appcore-serve`, which front ends in any language speak: its
/// version, the `hello` line that tells it, and its JSON Schema, derived from the intent
/// catalogue and the reply types.
public enum ServeProtocol {
    /// The protocol's version, `major.minor`. The major version changes when a line that parsed
    /// before no longer does or means something else (a field removed, renamed or retyped, an
    /// intent gone); the minor version when something is added (an intent, a field, a screen).
    public static let version = "1.0"

    /// The major part of ``version``.
    public static var majorVersion: Int { Int(version.prefix { $0 != "." }) ?? 0 }

    /// What a client says first to learn the versions: `{"hello":{"protocol":"1.0"}}`.
    public struct Hello: Codable, Equatable, Sendable {
        /// The protocol version the client speaks.
        public var `protocol`: String

        /// A hello from a client speaking `protocolVersion`.
        public init(protocol protocolVersion: String) {
            self.protocol = protocolVersion
        }
    }

    /// The answer to a hello: the versions this server speaks and is.
    public struct Welcome: Codable, Equatable, Sendable {
        /// The protocol version this server speaks.
        public var `protocol`: String
        /// AppCore's version.
        public var appcore: String

        /// A welcome saying `protocolVersion` and AppCore's `appcore`.
        public init(protocol protocolVersion: String, appcore: String) {
            self.protocol = protocolVersion
            self.appcore = appcore
        }
    }

    /// One line a client sends: a hello, or an intent.
    public enum Line: Sendable {
        /// `{"hello":{…}}`.
        case hello(Hello)
        /// Any other line, read as an intent.
        case intent(Intent)

        /// Reads one line: a hello by its key, anything else as an intent.
        public init(jsonLine bytes: some Collection<UInt8>) throws(IntentJSONError) {
            if bytes.lazy.filter({ $0 != UInt8(ascii: " ") }).starts(with: #"{"hello""#.utf8) {
                guard let wrapper = try? JSONDecoder().decode([String: Hello].self, from: Data(bytes)), let hello = wrapper["hello"],
                    wrapper.count == 1
                else {
                    throw IntentJSONError(#"a hello is {"hello":{"protocol":"\#(ServeProtocol.version)"}}"#)
                }
                self = .hello(hello)
            } else {
                self = .intent(try Intent(jsonLine: bytes))
            }
        }
    }

    /// The reply to `hello`: this server's versions, or why it refuses a client of another major version.
    public static func reply(to hello: Hello) -> Result<Welcome, IntentJSONError> {
        let major = Int(hello.protocol.prefix { $0 != "." })
        guard major == majorVersion else {
            return .failure(
                IntentJSONError(
                    "this server speaks protocol \(version) (AppCore \(AppCoreVersion.current)); a client of protocol \(hello.protocol) cannot talk to it"
                ))
        }
        return .success(Welcome(protocol: version, appcore: AppCoreVersion.current))
    }

    /// The protocol as one JSON Schema (2020-12) document, its keys sorted: `$defs` hold
    /// `IntentLine` (what a client sends) and `ReplyLine` (what it reads), and the types they use.
    public static func schema() throws(SchemaError) -> String {
        var builder = JSONSchemaBuilder(leaves: [
            ObjectIdentifier(Note.ID.self): .init(schema: uuid, value: Note.ID(UUID())),
            ObjectIdentifier(Post.ID.self): .init(schema: uuid, value: Post.ID(UUID())),
        ])
        let update = builder.schema(of: IntentOutcome.Update.self)
        let welcome = builder.schema(of: Welcome.self)
        guard builder.problems.isEmpty else { throw SchemaError(problems: builder.problems) }
        var definitions = builder.definitionsJSON
        definitions["IntentLine"] = [
            "description": "One line a client sends: an intent, named by its one key, or a hello.",
            "oneOf": Intent.Kind.allCases.map(intentLine) + [
                line("hello", ["type": "object", "properties": ["protocol": ["type": "string"]], "required": ["protocol"], "additionalProperties": false])
            ],
        ]
        definitions["ReplyLine"] = [
            "description": "One line the server answers with: an intent's outcome, a hello's welcome, or an error for a line that is not one.",
            "oneOf": [
                update, line("hello", welcome),
                ["type": "object", "properties": ["error": ["type": "string"]], "required": ["error"], "additionalProperties": false],
            ],
        ]
        let document: [String: Any] = [
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "https://appcore.invalid/appcore-serve/protocol-\(version).schema.json",
            "title": "appcore-serve protocol \(version)",
            "description": "JSON lines: a client writes one IntentLine per line and reads one ReplyLine for each.",
            "$defs": definitions,
        ]
        do {
            let data = try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
            return String(decoding: data, as: UTF8.self) + "\n"
        } catch {
            throw SchemaError(problems: ["the schema is not JSON: \(error)"])
        }
    }

    /// Why the schema could not be made: types it cannot describe.
    public struct SchemaError: Error, CustomStringConvertible {
        /// What could not be described, one line each.
        public let problems: [String]
        /// The problems, one per line.
        public var description: String { problems.joined(separator: "\n") }
    }

    private static var uuid: [String: Any] { ["type": "string", "format": "uuid"] }

    /// `{"<name>": value}`, nothing else.
    private static func line(_ name: String, _ value: [String: Any]) -> [String: Any] {
        ["type": "object", "properties": [name: value], "required": [name], "additionalProperties": false]
    }

    /// The line of an intent of `kind`: its arguments by label, from the catalogue.
    private static func intentLine(_ kind: Intent.Kind) -> [String: Any] {
        var properties: [String: Any] = [:]
        var required: [String] = []
        for parameter in kind.parameters {
            switch parameter.value {
            case .text, .secret:
                properties[parameter.label] = ["type": "string"]
                required.append(parameter.label)
            case .note:
                properties[parameter.label] = uuid
                required.append(parameter.label)
            case .optionalNote:
                properties[parameter.label] = ["type": ["string", "null"], "format": "uuid"]
            }
        }
        var arguments: [String: Any] = ["type": "object", "properties": properties, "additionalProperties": false]
        if !required.isEmpty { arguments["required"] = required }
        var schema = line(kind.rawValue, arguments)
        schema["description"] = kind.summary
        return schema
    }
}

extension IntentOutcome.Status: SchemaCases {
    static let schemaCaseNames = ["completed", "rejected", "failed", "timedOut"]
}

extension NotesUpdate.Rows: SchemaCases {
    static let schemaCaseNames = ["all", "changes"]
}

extension ProfileViewModel.Row: SchemaCases {
    static let schemaCaseNames = ["header", "post", "draft", "loading", "error"]
}
