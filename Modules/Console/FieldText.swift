/// A top-level field of an `Encodable` value as `expect` shows it, from its own coding.
enum FieldText {
    /// The field `name` of `value`; `"nil"` when the value leaves it out.
    static func of(_ name: String, in value: some Encodable) -> String {
        let capture = Capture(field: name)
        try? value.encode(to: FieldEncoder(capture: capture, isTop: true))
        return capture.text ?? "nil"
    }

    private final class Capture {
        let field: String
        var text: String?
        var count = 0

        init(field: String) {
            self.field = field
        }
    }

    /// At the top, a keyed container that keeps one field; below it, the field's own encoding.
    private struct FieldEncoder: Encoder {
        let capture: Capture
        let isTop: Bool
        var codingPath: [any CodingKey] { [] }
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            if !isTop, capture.text == nil { capture.text = "(a value)" }
            return KeyedEncodingContainer(Fields<Key>(capture: capture, isTop: isTop))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            capture.count = 0
            capture.text = "0 items"
            return Elements(capture: capture)
        }

        func singleValueContainer() -> any SingleValueEncodingContainer {
            Single(capture: capture)
        }
    }

    private struct Fields<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let capture: Capture
        let isTop: Bool
        var codingPath: [any CodingKey] { [] }

        mutating func encodeNil(forKey key: Key) throws {}

        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            guard isTop, key.stringValue == capture.field else { return }
            switch value {
            case let text as String: capture.text = text
            case let flag as Bool: capture.text = String(flag)
            case let number as Int: capture.text = String(number)
            default: try value.encode(to: FieldEncoder(capture: capture, isTop: false))
            }
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            KeyedEncodingContainer(Fields<NestedKey>(capture: capture, isTop: false))
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            Elements(capture: Capture(field: ""))
        }

        mutating func superEncoder() -> any Encoder { FieldEncoder(capture: capture, isTop: false) }

        mutating func superEncoder(forKey key: Key) -> any Encoder { FieldEncoder(capture: capture, isTop: false) }
    }

    /// A list: counted, its elements not read.
    private struct Elements: UnkeyedEncodingContainer {
        let capture: Capture
        var codingPath: [any CodingKey] { [] }
        var count: Int { capture.count }

        mutating func encodeNil() throws { counted() }

        mutating func encode<T: Encodable>(_ value: T) throws { counted() }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            counted()
            return KeyedEncodingContainer(Fields<NestedKey>(capture: Capture(field: ""), isTop: false))
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            counted()
            return Elements(capture: Capture(field: ""))
        }

        mutating func superEncoder() -> any Encoder { FieldEncoder(capture: Capture(field: ""), isTop: false) }

        private func counted() {
            capture.count += 1
            capture.text = "\(capture.count) items"
        }
    }

    /// One value: its text.
    private struct Single: SingleValueEncodingContainer {
        let capture: Capture
        var codingPath: [any CodingKey] { [] }

        mutating func encodeNil() throws { capture.text = "nil" }

        mutating func encode(_ value: String) throws { capture.text = value }

        mutating func encode(_ value: Bool) throws { capture.text = String(value) }

        mutating func encode(_ value: Int) throws { capture.text = String(value) }

        mutating func encode(_ value: Double) throws { capture.text = "\(value)" }

        mutating func encode<T: Encodable>(_ value: T) throws {
            try value.encode(to: FieldEncoder(capture: capture, isTop: false))
        }
    }
}
