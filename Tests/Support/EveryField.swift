import Foundation

/// Values of a `Decodable` type with every field set, none to the value a default gives, made
/// through the type's own decoding: a field added to the type is set too, without a test
/// naming it. For tests that hold a hand-written codec or a table's columns to the type.
///
/// Each field gets a value of its own (texts and numbers differ from field to field, a flag is
/// `true`, most flags' default being `false`); an optional is never `nil`, an array holds one element. An enum takes its `variant`-th case
/// among the names in `caseNames` it knows (synthesized coding keys cannot be listed:
/// ``declaredCaseNames`` holds every name the modules declare); a `CaseIterable` enum takes one
/// of its cases; a type whose decoding checks its text (an id) takes its value from ``use(_:for:)``.
public struct EveryField {
    /// Values for types a text or number cannot make, by type.
    private var values: [ObjectIdentifier: @Sendable (Int) -> Any] = [:]
    /// The names of enum cases to choose among.
    public var caseNames: [String] = []

    /// No values and no case names yet.
    public init() {}

    /// Every case name the library modules' sources declare (`case name`, `case a(X), b`): the
    /// names an enum's synthesized coding keys are among, found without a list kept by hand.
    public static let declaredCaseNames: [String] = {
        let modules = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Modules")
        let files = FileManager.default.enumerator(at: modules, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        var names = Set<String>()
        for file in files where file.pathExtension == "swift" {
            guard let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n") {
                let code = line.drop { $0.isWhitespace }
                guard code.hasPrefix("case "), let start = code.dropFirst(5).first, start.isLetter, !code.hasPrefix("case let "),
                    !code.hasPrefix("case var ")
                else { continue }
                // The declared names: the identifier that starts each top-level comma-separated part.
                var depth = 0
                var atName = true
                var name = ""
                for character in code.dropFirst(5) {
                    if character == "(" || character == "[" { depth += 1 }
                    if character == ")" || character == "]" { depth -= 1 }
                    if atName && (character.isLetter || character.isNumber || character == "_") {
                        name.append(character)
                        continue
                    }
                    if atName && name.isEmpty && character == " " { continue }
                    if !name.isEmpty { names.insert(name) }
                    name = ""
                    atName = depth == 0 && character == ","
                    if depth == 0 && (character == ":" || character == "=" || character == "/") { break }
                }
                if !name.isEmpty { names.insert(name) }
            }
        }
        return names.sorted()
    }()

    /// Makes values of `type` with `make`, given a number that differs from field to field.
    public mutating func use<Value>(_ make: @escaping @Sendable (Int) -> Value, for type: Value.Type) {
        values[ObjectIdentifier(type)] = { make($0) }
    }

    /// A value of `type` with every field set; each enum takes its `variant`-th case named in
    /// ``caseNames`` (counting around).
    public func value<Value: Decodable>(_ type: Value.Type, variant: Int = 0) throws -> Value {
        let counter = Counter()
        return try make(type, decoder: Filling(field: self, variant: variant, counter: counter, codingPath: []))
    }

    fileprivate func make<Value: Decodable>(_ type: Value.Type, decoder: Filling) throws -> Value {
        if let make = values[ObjectIdentifier(type)], let value = make(decoder.counter.next()) as? Value { return value }
        // A case of an enum that lists them (a raw value's text would not be one).
        if let enumeration = type as? any CaseIterable.Type, let value = Self.case(of: enumeration, decoder.counter.next()) as? Value {
            return value
        }
        // A case of an enum of texts, among the names it accepts (a text of its own would not be one).
        if let enumeration = type as? any RawRepresentable.Type, let value = rawValueCase(of: enumeration, decoder.variant) as? Value {
            return value
        }
        return try Value(from: decoder)
    }

    private func rawValueCase<Enumeration: RawRepresentable>(of type: Enumeration.Type, _ variant: Int) -> Enumeration? {
        let cases = caseNames.compactMap { ($0 as? Enumeration.RawValue).flatMap(Enumeration.init(rawValue:)) }
        return cases.isEmpty ? nil : cases[variant % cases.count]
    }

    private static func `case`<Enumeration: CaseIterable>(of type: Enumeration.Type, _ number: Int) -> Enumeration? {
        let cases = Array(type.allCases)
        return cases.isEmpty ? nil : cases[number % cases.count]
    }

    /// The paths (`rows[0].title`) where two JSON values differ: a key one has and the other
    /// lacks, or a different value.
    public static func differences(_ left: Any?, _ right: Any?, at path: String = "") -> [String] {
        switch (left, right) {
        case (let left as [String: Any], let right as [String: Any]):
            return Set(left.keys).union(right.keys).sorted().flatMap { key in
                differences(left[key], right[key], at: path.isEmpty ? key : path + "." + key)
            }
        case (let left as [Any], let right as [Any]):
            guard left.count == right.count else { return [path + " (\(left.count) against \(right.count) elements)"] }
            return zip(left, right).enumerated().flatMap { differences($1.0, $1.1, at: path + "[\($0)]") }
        case (let left as NSObject, let right as NSObject):
            return left == right ? [] : [path]
        case (nil, nil):
            return []
        default:
            return [path]
        }
    }

    /// The JSON `JSONSerialization` reads from `text`, for ``differences(_:_:at:)``.
    public static func json(_ text: some StringProtocol) -> Any? {
        try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
    }
}

/// Numbers each value made, so no two fields get the same one.
private final class Counter {
    private var count = 0
    func next() -> Int {
        count += 1
        return count
    }
}

private struct Filling: Decoder {
    let field: EveryField
    let variant: Int
    let counter: Counter
    var codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Keyed<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { Unkeyed(decoder: self) }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { Single(decoder: self) }

    func nested(_ key: (any CodingKey)?) -> Filling {
        Filling(field: field, variant: variant, counter: counter, codingPath: codingPath + (key.map { [$0] } ?? []))
    }

    /// A value of a type JSON holds as a number or text, differing from the last one made.
    func primitive<Value: Decodable>(_ type: Value.Type) throws -> Value {
        let number = counter.next()
        let made: Any? =
            switch type {
            case is String.Type: "text \(number) of \(codingPath.map(\.stringValue).joined(separator: "."))"
            case is Bool.Type: true
            case is Double.Type: Double(number) + 0.5
            case is Float.Type: Float(number) + 0.5
            case is Int.Type: number + 1
            case is Int64.Type: Int64(number + 1)
            case is Int32.Type: Int32(number + 1)
            case is UInt.Type: UInt(number + 1)
            case is UInt64.Type: UInt64(number + 1)
            default: nil
            }
        if let made = made as? Value { return made }
        return try field.make(type, decoder: self)
    }
}

private struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: Filling
    var codingPath: [any CodingKey] { decoder.codingPath }

    /// An enum's cases are listed as one: the chosen one among those the key type knows.
    var allKeys: [Key] {
        let known = decoder.field.caseNames.compactMap(Key.init(stringValue:))
        return known.isEmpty ? [] : [known[decoder.variant % known.count]]
    }

    func contains(_ key: Key) -> Bool { true }
    func decodeNil(forKey key: Key) throws -> Bool { false }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.nested(key).primitive(type)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try decoder.nested(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { Unkeyed(decoder: decoder.nested(key)) }
    func superDecoder() throws -> any Decoder { decoder }
    func superDecoder(forKey key: Key) throws -> any Decoder { decoder.nested(key) }
}

/// One element.
private struct Unkeyed: UnkeyedDecodingContainer {
    let decoder: Filling
    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { 1 }
    var currentIndex = 0
    var isAtEnd: Bool { currentIndex >= 1 }

    init(decoder: Filling) { self.decoder = decoder }

    mutating func decodeNil() throws -> Bool { false }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        defer { currentIndex += 1 }
        return try decoder.primitive(type)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        defer { currentIndex += 1 }
        return try decoder.container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        defer { currentIndex += 1 }
        return Unkeyed(decoder: decoder)
    }

    mutating func superDecoder() throws -> any Decoder { decoder }
}

private struct Single: SingleValueDecodingContainer {
    let decoder: Filling
    var codingPath: [any CodingKey] { decoder.codingPath }
    func decodeNil() -> Bool { false }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.primitive(type) }
}
