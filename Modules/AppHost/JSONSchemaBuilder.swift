import Foundation

/// An enum with cases that carry values, whose case names a schema lists: synthesized coding
/// keys cannot be listed. A test holds each list to the cases the type encodes.
protocol SchemaCases {
    /// The key each case is encoded under.
    static var schemaCaseNames: [String] { get }
}

/// JSON Schemas (2020-12) of `Decodable` types, derived by decoding each type from a decoder that
/// records what its decoding asks for: a field added to a type reaches its schema by itself.
/// Structs and enums go in ``definitions`` and are referred to.
struct JSONSchemaBuilder {
    /// A type whose decoding checks its value (an id), which a recording cannot make up.
    struct Leaf {
        let schema: [String: Any]
        let value: Any
    }

    /// The schemas of the structs and enums met so far, by ``name(of:)``.
    private(set) var definitions: [String: Shape] = [:]
    private let leaves: [ObjectIdentifier: Leaf]
    /// The types that could not be described, and why.
    private(set) var problems: [String] = []

    init(leaves: [ObjectIdentifier: Leaf]) {
        self.leaves = leaves
    }

    /// The schema of `type`.
    mutating func schema<T: Decodable>(of type: T.Type) -> [String: Any] {
        do {
            return try value(of: type).shape.json
        } catch {
            problems.append("\(Self.name(of: type)) cannot be described: \(error)")
            return [:]
        }
    }

    /// The definitions, as the `$defs` of a schema document.
    var definitionsJSON: [String: Any] { definitions.mapValues(\.json) }

    /// The name a type's definition goes under: its name within its module (`NotesUpdate.Rows`).
    static func name(of type: Any.Type) -> String {
        String(reflecting: type).split(separator: ".").dropFirst().joined(separator: ".")
    }

    /// A stand-in value of `type`, and the shape of what its decoding asked for.
    fileprivate mutating func value<T: Decodable>(of type: T.Type) throws -> (value: T, shape: Shape) {
        if let leaf = leaves[ObjectIdentifier(type)], let value = leaf.value as? T { return (value, Shape(fixed: leaf.schema)) }
        if let primitive = Self.primitives[ObjectIdentifier(type)] {
            return (try T(from: Stand(builder: self, shape: Shape())), Shape(fixed: primitive))
        }
        if let texts = type as? any (CaseIterable & Encodable).Type {
            let cases = Self.encoded(texts)
            let value = try T(from: Stand(builder: self, shape: Shape(), text: cases.first as? String))
            return (value, Shape(fixed: ["enum": cases]))
        }
        // The standard library's types (arrays, optionals) are described in place.
        if String(reflecting: type).hasPrefix("Swift.") { return try decode(type) }
        let name = Self.name(of: type)
        let reference = Shape(fixed: ["$ref": "#/$defs/\(name)"])
        if let defined = definitions[name] {
            // A type that holds itself would be decoded without end.
            guard defined.isComplete else { throw SchemaProblem("\(name) holds a value of its own type") }
            // Defined: a stand-in, recording nothing more.
            var scratch = self
            return (try scratch.decode(type).value, reference)
        }
        definitions[name] = Shape(fixed: [:], isComplete: false)
        let (value, shape) = try decode(type)
        definitions[name] = shape
        return (value, reference)
    }

    private mutating func decode<T: Decodable>(_ type: T.Type) throws -> (value: T, shape: Shape) {
        guard let enumeration = type as? any SchemaCases.Type else {
            let shape = Shape()
            let value = try decode(type, into: shape)
            if shape.askedForCases { throw SchemaProblem("an enum whose cases no schema lists (make it SchemaCases)") }
            return (value, shape)
        }
        var first: T?
        var alternatives: [Shape] = []
        for caseName in enumeration.schemaCaseNames {
            let shape = Shape(chosenCase: caseName)
            let value = try decode(type, into: shape)
            first = first ?? value
            alternatives.append(shape)
        }
        guard let first else { throw SchemaProblem("an enum with no case listed") }
        return (first, Shape(alternatives: alternatives))
    }

    /// `type` decoded from a recording into `shape`, keeping the definitions it met.
    private mutating func decode<T: Decodable>(_ type: T.Type, into shape: Shape) throws -> T {
        let stand = Stand(builder: self, shape: shape)
        let value = try T(from: stand)
        self = stand.box.builder
        return value
    }

    private static var primitives: [ObjectIdentifier: [String: Any]] {
        [
            ObjectIdentifier(String.self): ["type": "string"], ObjectIdentifier(Bool.self): ["type": "boolean"],
            ObjectIdentifier(Int.self): ["type": "integer"], ObjectIdentifier(Int64.self): ["type": "integer"],
            ObjectIdentifier(UInt64.self): ["type": "integer", "minimum": 0], ObjectIdentifier(Double.self): ["type": "number"],
        ]
    }

    private static func encoded(_ type: any (CaseIterable & Encodable).Type) -> [Any] {
        func texts<C: CaseIterable & Encodable>(_ type: C.Type) -> [Any] {
            type.allCases.compactMap { value in
                (try? JSONEncoder().encode(value)).flatMap { try? JSONSerialization.jsonObject(with: $0, options: .fragmentsAllowed) }
            }
        }
        return texts(type)
    }
}

/// Why a type cannot be described.
struct SchemaProblem: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// What one value's decoding asked for: an object's properties, an array's items, a value of a
/// type described already, or one of several cases.
final class Shape {
    private(set) var properties: [(key: String, shape: Shape)] = []
    private(set) var required: [String] = []
    var items: Shape?
    var isObject = false
    var fixed: [String: Any]?
    var alternatives: [Shape]?
    /// The case an enum's decoding is handed, when its cases are listed.
    let chosenCase: String?
    var askedForCases = false
    /// Whether the shape is described whole (not a definition being made).
    let isComplete: Bool

    init(fixed: [String: Any]? = nil, chosenCase: String? = nil, alternatives: [Shape]? = nil, isComplete: Bool = true) {
        self.fixed = fixed
        self.chosenCase = chosenCase
        self.alternatives = alternatives
        self.isComplete = isComplete
    }

    func add(_ key: String, _ shape: Shape, required isRequired: Bool) {
        isObject = true
        properties.removeAll { $0.key == key }
        properties.append((key, shape))
        if isRequired && !required.contains(key) { required.append(key) }
    }

    /// Takes on what another shape described (a value decoded through a single-value container).
    func become(_ other: Shape) {
        fixed = other.fixed
        alternatives = other.alternatives
        items = other.items
        isObject = other.isObject
        properties = other.properties
        required = other.required
    }

    var json: [String: Any] {
        if let fixed { return fixed }
        if let alternatives { return ["oneOf": alternatives.map(\.json)] }
        if let items { return ["type": "array", "items": items.json] }
        guard isObject else { return [:] }
        var schema: [String: Any] = [
            "type": "object", "additionalProperties": false,
            "properties": Dictionary(properties.map { ($0.key, $0.shape.json) }, uniquingKeysWith: { $1 }),
        ]
        if !required.isEmpty { schema["required"] = required.sorted() }
        return schema
    }
}

/// The builder, shared by the containers of one decoding (a decoder is a value).
private final class BuilderBox {
    var builder: JSONSchemaBuilder
    init(_ builder: JSONSchemaBuilder) { self.builder = builder }

    func value<T: Decodable>(of type: T.Type) throws -> (value: T, shape: Shape) {
        try builder.value(of: type)
    }
}

/// The decoder a described type decodes from.
private struct Stand: Decoder {
    let box: BuilderBox
    let shape: Shape
    /// The text a single-value decoding gets (an enum of texts takes its first case).
    let text: String?
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(builder: JSONSchemaBuilder, shape: Shape, text: String? = nil) {
        self.init(box: BuilderBox(builder), shape: shape, text: text)
    }

    init(box: BuilderBox, shape: Shape, text: String? = nil) {
        self.box = box
        self.shape = shape
        self.text = text
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        shape.isObject = true
        return KeyedDecodingContainer(Keyed<Key>(stand: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { Unkeyed(stand: self) }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { Single(stand: self) }
}

private struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let stand: Stand
    var codingPath: [any CodingKey] { [] }

    /// An enum's decoding asks which key it holds: the case chosen, when there is one.
    var allKeys: [Key] {
        guard let chosen = stand.shape.chosenCase else {
            stand.shape.askedForCases = true
            return []
        }
        return Key(stringValue: chosen).map { [$0] } ?? []
    }

    func contains(_ key: Key) -> Bool { true }
    func decodeNil(forKey key: Key) throws -> Bool { false }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try field(type, key, required: true) }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? { try field(type, key, required: false) }

    // An optional field of a primitive type comes through these, not the generic one.
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try field(type, key, required: false) }
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try field(type, key, required: false) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try field(type, key, required: false) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try field(type, key, required: false) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try field(type, key, required: false) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try field(type, key, required: false) }

    private func field<T: Decodable>(_ type: T.Type, _ key: Key, required: Bool) throws -> T {
        let (value, shape) = try stand.box.value(of: type)
        stand.shape.add(key.stringValue, shape, required: required)
        return value
    }

    /// A decoder of the value under `key`, an object of its own (an enum case's values).
    private func nested(_ key: Key) -> Stand {
        let nested = Shape()
        stand.shape.add(key.stringValue, nested, required: true)
        return Stand(box: stand.box, shape: nested)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try nested(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { try nested(key).unkeyedContainer() }
    func superDecoder() throws -> any Decoder { stand }
    func superDecoder(forKey key: Key) throws -> any Decoder { nested(key) }
}

/// An array: one element is decoded, and describes them all.
private struct Unkeyed: UnkeyedDecodingContainer {
    let stand: Stand
    var codingPath: [any CodingKey] { [] }
    var count: Int? { 1 }
    var currentIndex = 0
    var isAtEnd: Bool { currentIndex >= 1 }

    mutating func decodeNil() throws -> Bool { false }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        defer { currentIndex += 1 }
        let (value, shape) = try stand.box.value(of: type)
        stand.shape.items = shape
        return value
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try element().container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try element().unkeyedContainer() }

    /// A decoder of the one element, which describes them all.
    private mutating func element() -> Stand {
        defer { currentIndex += 1 }
        let element = Shape()
        stand.shape.items = element
        return Stand(box: stand.box, shape: element)
    }

    mutating func superDecoder() throws -> any Decoder { throw SchemaProblem("a super decoder in an array") }
}

/// One value: a primitive hands back a stand-in; any other type is described in place.
private struct Single: SingleValueDecodingContainer {
    let stand: Stand
    var codingPath: [any CodingKey] { [] }
    func decodeNil() -> Bool { false }
    func decode(_ type: String.Type) throws -> String { stand.text ?? "" }
    func decode(_ type: Bool.Type) throws -> Bool { false }
    func decode(_ type: Int.Type) throws -> Int { 0 }
    func decode(_ type: Int64.Type) throws -> Int64 { 0 }
    func decode(_ type: UInt64.Type) throws -> UInt64 { 0 }
    func decode(_ type: Double.Type) throws -> Double { 0 }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (value, shape) = try stand.box.value(of: type)
        stand.shape.become(shape)
        return value
    }
}
