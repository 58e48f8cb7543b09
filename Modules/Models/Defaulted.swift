/// A value's default, for ``Defaulted``.
public protocol DefaultValue {
    /// The value's type.
    associatedtype Value: Codable & Hashable & Sendable
    /// The default.
    static var value: Value { get }
}

/// `false`, as a ``DefaultValue``.
public enum DefaultFalse: DefaultValue {
    /// `false`.
    public static var value: Bool { false }
}

/// A stored field added after documents were written without it.
@propertyWrapper
public struct Defaulted<Default: DefaultValue>: Codable, Hashable, Sendable {
    /// The value.
    public var wrappedValue: Default.Value

    /// A field holding `wrappedValue`.
    public init(wrappedValue: Default.Value) {
        self.wrappedValue = wrappedValue
    }

    /// A field holding the default.
    public init() {
        wrappedValue = Default.value
    }

    /// Decodes the value itself (the container decides whether it is there).
    public init(from decoder: any Decoder) throws {
        wrappedValue = try Default.Value(from: decoder)
    }

    /// Encodes the value itself (the container leaves a default out).
    public func encode(to encoder: any Encoder) throws {
        try wrappedValue.encode(to: encoder)
    }
}

extension KeyedDecodingContainer {
    /// A ``Defaulted`` field: its default when the document does not hold it.
    public func decode<Default>(_ type: Defaulted<Default>.Type, forKey key: Key) throws -> Defaulted<Default> {
        try decodeIfPresent(type, forKey: key) ?? Defaulted()
    }
}

extension KeyedEncodingContainer {
    /// A ``Defaulted`` field, left out when it holds its default.
    public mutating func encode<Default>(_ value: Defaulted<Default>, forKey key: Key) throws {
        guard value.wrappedValue != Default.value else { return }
        try encodeIfPresent(value.wrappedValue, forKey: key)
    }
}
