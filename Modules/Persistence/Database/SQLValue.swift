/// A value bound to a statement's parameter or read from a column.
public enum SQLValue: Hashable, Sendable {
    /// SQL NULL.
    case null
    /// A 64-bit integer.
    case integer(Int64)
    /// A double.
    case real(Double)
    /// UTF-8 text.
    case text(String)
    /// Bytes.
    case blob([UInt8])
}

extension SQLValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByNilLiteral {
    /// Text.
    public init(stringLiteral value: String) { self = .text(value) }
    /// An integer.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// NULL.
    public init(nilLiteral: ()) { self = .null }
}

extension SQLValue {
    /// An integer from an `Int`.
    public static func int(_ value: Int) -> SQLValue { .integer(Int64(value)) }
}
