import AppHost
import Foundation
import Models
import TestSupport
import Testing
import ViewModels

/// appcore-serve's protocol described for other languages: a schema derived from the types, so
/// whatever a reply can carry is in it, and the versions a hello tells.
@Suite("appcore-serve's protocol")
struct ServeProtocolTests {
    let schema: [String: Any]
    var definitions: [String: Any] { schema["$defs"] as? [String: Any] ?? [:] }

    init() throws {
        let text = try ServeProtocol.schema()
        schema = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// Every field of an update set (one added later too), each case of its enums in turn: each
    /// reply `appcore-serve` can write is one the schema allows, or the test names what is not.
    @Test func everyFieldAndCaseAReplyCanCarryIsInTheSchema() throws {
        var every = EveryField()
        every.use({ Note.ID(UUID(sequence: UInt64($0))) }, for: Note.ID.self)
        every.use({ Post.ID(UUID(sequence: UInt64($0))) }, for: Post.ID.self)
        every.caseNames = EveryField.declaredCaseNames
        for variant in 0..<64 {
            let update = try every.value(IntentOutcome.Update.self, variant: variant)
            let reply = try #require(EveryField.json(try update.jsonLine()))
            let problems = Self.problems(of: reply, against: ["$ref": "#/$defs/ReplyLine"], definitions: definitions, at: "reply")
            #expect(problems.isEmpty, "the schema does not allow \(problems)")
        }
    }

    /// A field the schema does not know is named: what the test above would say of a field added
    /// to a row that did not reach the schema.
    @Test func aFieldTheSchemaDoesNotHoldIsNamed() throws {
        let row =
            #"{"screens":{"changed":["notes"],"notes":{"count":1,"isEmpty":false,"isLoading":false,"isSearching":false,"rowLimit":50,"searchQuery":"","rows":{"all":{"rows":[{"id":"00000000-0000-0000-0000-000000000001","isPending":false,"isSelected":false,"isUnsaved":false,"preview":"","title":"milk","updatedAt":"now","isPinned":true}]}}}},"status":{"completed":{}}}"#
        let problems = Self.problems(
            of: try #require(EveryField.json(row)), against: ["$ref": "#/$defs/ReplyLine"], definitions: definitions, at: "reply")
        #expect(problems.contains { $0.contains("reply.screens.notes.rows.all.rows[0].isPinned") }, "\(problems)")
    }

    @Test func everyIntentOfTheCatalogueIsALineOfTheSchema() throws {
        let lines = try #require((definitions["IntentLine"] as? [String: Any])?["oneOf"] as? [[String: Any]])
        let names = Set(lines.compactMap { ($0["required"] as? [String])?.first })
        #expect(names == Set(Intent.Kind.allCases.map(\.rawValue) + ["hello"]))
        for kind in Intent.Kind.allCases {
            // Each intent as a front end would send it is a line the schema allows.
            let arguments = kind.parameters.map { parameter in
                switch parameter.value {
                case .text, .secret: "\"\(parameter.label)\":\"x\""
                case .note, .optionalNote: "\"\(parameter.label)\":\"00000000-0000-0000-0000-000000000001\""
                }
            }
            let line = "{\"\(kind.rawValue)\":{\(arguments.joined(separator: ","))}}"
            #expect(throws: Never.self) { try Intent(jsonLine: Array(line.utf8)) }
            let problems = Self.problems(
                of: try #require(EveryField.json(line)), against: ["$ref": "#/$defs/IntentLine"], definitions: definitions, at: "line")
            #expect(problems.isEmpty, "\(line): \(problems)")
        }
    }

    @Test func aHelloOfThisMajorVersionIsWelcomedAndAnotherIsRefusedSayingBoth() throws {
        guard case .hello(let hello) = try ServeProtocol.Line(jsonLine: Array(#"{"hello":{"protocol":"1.3"}}"#.utf8)) else {
            Issue.record("a hello read as an intent")
            return
        }
        #expect(try ServeProtocol.reply(to: hello).get() == ServeProtocol.Welcome(protocol: ServeProtocol.version, appcore: AppCoreVersion.current))
        #expect(throws: IntentJSONError.self) { try ServeProtocol.Line(jsonLine: Array(#"{"hello":{}}"#.utf8)) }
        guard case .failure(let refusal) = ServeProtocol.reply(to: ServeProtocol.Hello(protocol: "2.0")) else {
            Issue.record("another major version was welcomed")
            return
        }
        #expect("\(refusal)".contains("protocol \(ServeProtocol.version)") && "\(refusal)".contains("2.0"))
        guard case .intent(.increment) = try ServeProtocol.Line(jsonLine: Array(#"{"increment":{}}"#.utf8)) else {
            Issue.record("an intent was not read as one")
            return
        }
    }

    /// Where `value` breaks `schema`: a key it does not declare, a required key missing, a value of
    /// another type, or no case of a `oneOf` that fits (the subset of JSON Schema the protocol uses).
    static func problems(of value: Any, against schema: [String: Any], definitions: [String: Any], at path: String) -> [String] {
        if let reference = schema["$ref"] as? String {
            let name = String(reference.dropFirst("#/$defs/".count))
            guard let definition = definitions[name] as? [String: Any] else { return ["\(path): no definition \(name)"] }
            return problems(of: value, against: definition, definitions: definitions, at: path)
        }
        if let alternatives = schema["oneOf"] as? [[String: Any]] {
            let each = alternatives.map { problems(of: value, against: $0, definitions: definitions, at: path) }
            if each.contains(where: \.isEmpty) { return [] }
            // The alternative that got furthest names what is wrong.
            return each.min { $0.count < $1.count } ?? ["\(path): no alternative"]
        }
        if let allowed = schema["enum"] as? [Any] {
            return allowed.contains { "\($0)" == "\(value)" } ? [] : ["\(path): \(value) is not one of \(allowed)"]
        }
        let types = (schema["type"] as? [String]) ?? (schema["type"] as? String).map { [$0] } ?? []
        switch value {
        case let object as [String: Any]:
            guard types.contains("object") else { return ["\(path): an object where \(types) is"] }
            let properties = schema["properties"] as? [String: Any] ?? [:]
            var found = ((schema["required"] as? [String]) ?? []).filter { object[$0] == nil }.map { "\(path).\($0): missing" }
            for (key, child) in object {
                guard let property = properties[key] as? [String: Any] else {
                    found.append("\(path).\(key): not in the schema")
                    continue
                }
                found += problems(of: child, against: property, definitions: definitions, at: "\(path).\(key)")
            }
            return found
        case let array as [Any]:
            guard types.contains("array"), let items = schema["items"] as? [String: Any] else { return ["\(path): an array where \(types) is"] }
            return array.enumerated().flatMap { problems(of: $1, against: items, definitions: definitions, at: "\(path)[\($0)]") }
        case is String:
            return types.contains("string") ? [] : ["\(path): a string where \(types) is"]
        case let number as NSNumber:
            let isBool = String(cString: number.objCType) == "c" // how JSONSerialization marks true and false
            let fits = isBool ? types.contains("boolean") : (types.contains("integer") || types.contains("number"))
            return fits ? [] : ["\(path): \(number) where \(types) is"]
        default:
            return types.contains("null") ? [] : ["\(path): null where \(types) is"]
        }
    }
}
