import Foundation
import Models

/// The journal's encoding of actions and snapshots: any `Codable` value as compact tagged binary,
/// several times faster than the JSON older journals hold (still read).
enum CompactCoding {
    /// The first byte of a compact document: not a byte any JSON text starts with.
    static let magic: UInt8 = 0xAC
    static let version: UInt8 = 1

    /// Whether `bytes` is a compact document (otherwise it is JSON from an older journal).
    static func isCompact(_ bytes: [UInt8]) -> Bool {
        bytes.first == magic
    }

    /// `value` as a compact document; its encoders hand `userInfo` to the values.
    static func encode<T: Encodable>(_ value: T, userInfo: [CodingUserInfoKey: any Sendable] = [:]) throws -> [UInt8] {
        let writer = CompactWriter(userInfo: userInfo)
        writer.bytes.reserveCapacity(256)
        writer.bytes.append(magic)
        writer.bytes.append(version)
        try writer.encodeValue(value, depth: 0, codingPath: [])
        writer.close(deeperThan: 0)
        return writer.bytes
    }

    /// The value of type `T` in the compact document `bytes`.
    static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8], userInfo: [CodingUserInfoKey: any Sendable] = [:]) throws -> T {
        guard bytes.count >= 2, bytes[0] == magic else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "not a compact document"))
        }
        guard bytes[1] == version else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: [], debugDescription: "compact format version \(bytes[1]) is newer than this program's \(version)"))
        }
        let reader = CompactReader(bytes, userInfo: userInfo)
        // One walk checks the whole document; containers then read their entries in place.
        guard try reader.skip(at: 2, []) == bytes.count else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "the document does not end where its value does"))
        }
        return try reader.decodeValue(T.self, at: 2, codingPath: [])
    }
}

private enum Tag: UInt8 {
    case null = 0, falseValue, trueValue, signed, unsigned, double, float, string, keyed, unkeyed, end
}

// MARK: - Writing

/// The document being written, and how many containers are open in it.
private final class CompactWriter {
    // Not checked for exclusive access at run time: one encoding uses a writer, on one thread,
    // and the check cost a thread-local lookup for every byte written.
    @exclusivity(unchecked) var bytes: [UInt8] = []
    let userInfo: [CodingUserInfoKey: any Sendable]

    init(userInfo: [CodingUserInfoKey: any Sendable]) {
        self.userInfo = userInfo
    }

    /// Whether each open container is keyed, outermost first.
    @exclusivity(unchecked) private var openKeyed: [Bool] = []

    var openContainers: Int { openKeyed.count }

    func close(deeperThan depth: Int) {
        while openKeyed.count > depth {
            // A keyed container ends where a key would start: a key length of 0.
            bytes.append(openKeyed.removeLast() ? 0 : Tag.end.rawValue)
        }
    }

    /// Makes way for a write to a container at `depth`, which must still be open.
    func prepareWrite(at depth: Int, codingPath: [any CodingKey]) throws {
        guard openContainers >= depth else {
            throw EncodingError.invalidValue(
                (),
                .init(
                    codingPath: codingPath,
                    debugDescription: "a container was written to after a later one: the compact format needs containers written one after another"))
        }
        close(deeperThan: depth)
    }

    func open(_ tag: Tag) {
        bytes.append(tag.rawValue)
        openKeyed.append(tag == .keyed)
    }

    func writeLength(_ value: Int) {
        writeUnsigned(UInt64(value))
    }

    func writeUnsigned(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    func writeSigned(_ value: Int64) {
        bytes.append(Tag.signed.rawValue)
        writeUnsigned(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    func writeString(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            writeLength(utf8.count)
            bytes.append(contentsOf: utf8)
        }
    }

    func writeKey(_ key: some CodingKey) {
        writeKey(key.stringValue)
    }

    /// A key: its UTF-8 length + 1, so that 0 can end the container.
    func writeKey(_ key: String) {
        var key = key
        key.withUTF8 { utf8 in
            writeLength(utf8.count + 1)
            bytes.append(contentsOf: utf8)
        }
    }

    func write(_ value: Bool) { bytes.append(value ? Tag.trueValue.rawValue : Tag.falseValue.rawValue) }

    func write(_ value: String) {
        bytes.append(Tag.string.rawValue)
        writeString(value)
    }

    func write(_ value: Double) {
        bytes.append(Tag.double.rawValue)
        appendLittleEndian(value.bitPattern, byteCount: 8)
    }

    func write(_ value: Float) {
        bytes.append(Tag.float.rawValue)
        appendLittleEndian(UInt64(value.bitPattern), byteCount: 4)
    }

    /// The low `byteCount` bytes of `bits`, least significant first.
    private func appendLittleEndian(_ bits: UInt64, byteCount: Int) {
        for shift in stride(from: 0, to: byteCount * 8, by: 8) { bytes.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
    }

    func writeUnsignedValue(_ value: UInt64) {
        bytes.append(Tag.unsigned.rawValue)
        writeUnsigned(value)
    }

    func writeNil() { bytes.append(Tag.null.rawValue) }

    /// Writes `value` as the next value of a container at `depth` (0: the document).
    func encodeValue<T: Encodable>(_ value: T, depth: Int, codingPath: [any CodingKey]) throws {
        // The common leaves without an encoder of their own (the type test is cheap; a cast is not).
        if T.self == String.self, let value = value as? String { return write(value) }
        if T.self == Int.self, let value = value as? Int { return writeSigned(Int64(value)) }
        if T.self == Bool.self, let value = value as? Bool { return write(value) }
        if T.self == Double.self, let value = value as? Double { return write(value) }
        do {
            let start = bytes.count
            try value.encode(to: CompactValueEncoder(writer: self, depth: depth, codingPath: codingPath))
            // A value that wrote nothing reads back as an empty keyed container, as in JSON.
            if bytes.count == start {
                open(.keyed)
                close(deeperThan: depth)
            }
        }
    }
}

/// The encoder one value gets: the value sits inside `depth` open containers.
private struct CompactValueEncoder: Encoder {
    let writer: CompactWriter
    let depth: Int
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { writer.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        writer.close(deeperThan: depth)
        writer.open(.keyed)
        return KeyedEncodingContainer(CompactKeyedEncoder<Key>(writer: writer, depth: depth + 1, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        writer.close(deeperThan: depth)
        writer.open(.unkeyed)
        return CompactUnkeyedEncoder(writer: writer, depth: depth + 1, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        CompactSingleValueEncoder(writer: writer, depth: depth, codingPath: codingPath)
    }
}

private struct CompactKeyedEncoder<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let writer: CompactWriter
    /// Containers open once this one is: its entries are written at this depth.
    let depth: Int
    let codingPath: [any CodingKey]

    private func begin(_ key: Key) throws {
        try writer.prepareWrite(at: depth, codingPath: codingPath)
        writer.writeKey(key)
    }

    mutating func encodeNil(forKey key: Key) throws {
        try begin(key)
        writer.writeNil()
    }

    mutating func encode(_ value: Bool, forKey key: Key) throws { try begin(key); writer.write(value) }
    mutating func encode(_ value: String, forKey key: Key) throws { try begin(key); writer.write(value) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try begin(key); writer.write(value) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try begin(key); writer.write(value) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try begin(key); writer.writeSigned(Int64(value)) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try begin(key); writer.writeSigned(Int64(value)) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try begin(key); writer.writeSigned(Int64(value)) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try begin(key); writer.writeSigned(Int64(value)) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try begin(key); writer.writeSigned(value) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try begin(key); writer.writeUnsignedValue(UInt64(value)) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try begin(key); writer.writeUnsignedValue(UInt64(value)) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try begin(key); writer.writeUnsignedValue(UInt64(value)) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try begin(key); writer.writeUnsignedValue(UInt64(value)) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try begin(key); writer.writeUnsignedValue(value) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try begin(key)
        try writer.encodeValue(value, depth: depth, codingPath: codingPath)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        writer.close(deeperThan: depth)
        writer.writeKey(key)
        writer.open(.keyed)
        return KeyedEncodingContainer(CompactKeyedEncoder<NestedKey>(writer: writer, depth: depth + 1, codingPath: codingPath))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        writer.close(deeperThan: depth)
        writer.writeKey(key)
        writer.open(.unkeyed)
        return CompactUnkeyedEncoder(writer: writer, depth: depth + 1, codingPath: codingPath)
    }

    mutating func superEncoder() -> any Encoder {
        writer.close(deeperThan: depth)
        writer.writeKey("super")
        return CompactValueEncoder(writer: writer, depth: depth, codingPath: codingPath)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        writer.close(deeperThan: depth)
        writer.writeKey(key)
        return CompactValueEncoder(writer: writer, depth: depth, codingPath: codingPath)
    }
}

private struct CompactUnkeyedEncoder: UnkeyedEncodingContainer {
    let writer: CompactWriter
    let depth: Int
    let codingPath: [any CodingKey]
    private(set) var count = 0

    init(writer: CompactWriter, depth: Int, codingPath: [any CodingKey]) {
        self.writer = writer
        self.depth = depth
        self.codingPath = codingPath
    }

    private mutating func begin() throws {
        try writer.prepareWrite(at: depth, codingPath: codingPath)
        count += 1
    }

    mutating func encodeNil() throws { try begin(); writer.writeNil() }
    mutating func encode(_ value: Bool) throws { try begin(); writer.write(value) }
    mutating func encode(_ value: String) throws { try begin(); writer.write(value) }
    mutating func encode(_ value: Double) throws { try begin(); writer.write(value) }
    mutating func encode(_ value: Float) throws { try begin(); writer.write(value) }
    mutating func encode(_ value: Int) throws { try begin(); writer.writeSigned(Int64(value)) }
    mutating func encode(_ value: Int8) throws { try begin(); writer.writeSigned(Int64(value)) }
    mutating func encode(_ value: Int16) throws { try begin(); writer.writeSigned(Int64(value)) }
    mutating func encode(_ value: Int32) throws { try begin(); writer.writeSigned(Int64(value)) }
    mutating func encode(_ value: Int64) throws { try begin(); writer.writeSigned(value) }
    mutating func encode(_ value: UInt) throws { try begin(); writer.writeUnsignedValue(UInt64(value)) }
    mutating func encode(_ value: UInt8) throws { try begin(); writer.writeUnsignedValue(UInt64(value)) }
    mutating func encode(_ value: UInt16) throws { try begin(); writer.writeUnsignedValue(UInt64(value)) }
    mutating func encode(_ value: UInt32) throws { try begin(); writer.writeUnsignedValue(UInt64(value)) }
    mutating func encode(_ value: UInt64) throws { try begin(); writer.writeUnsignedValue(value) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try begin()
        try writer.encodeValue(value, depth: depth, codingPath: codingPath)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        writer.close(deeperThan: depth)
        count += 1
        writer.open(.keyed)
        return KeyedEncodingContainer(CompactKeyedEncoder<NestedKey>(writer: writer, depth: depth + 1, codingPath: codingPath))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        writer.close(deeperThan: depth)
        count += 1
        writer.open(.unkeyed)
        return CompactUnkeyedEncoder(writer: writer, depth: depth + 1, codingPath: codingPath)
    }

    mutating func superEncoder() -> any Encoder {
        writer.close(deeperThan: depth)
        count += 1
        return CompactValueEncoder(writer: writer, depth: depth, codingPath: codingPath)
    }
}

private struct CompactSingleValueEncoder: SingleValueEncodingContainer {
    let writer: CompactWriter
    let depth: Int
    let codingPath: [any CodingKey]

    private func begin() { writer.close(deeperThan: depth) }

    mutating func encodeNil() throws { begin(); writer.writeNil() }
    mutating func encode(_ value: Bool) throws { begin(); writer.write(value) }
    mutating func encode(_ value: String) throws { begin(); writer.write(value) }
    mutating func encode(_ value: Double) throws { begin(); writer.write(value) }
    mutating func encode(_ value: Float) throws { begin(); writer.write(value) }
    mutating func encode(_ value: Int) throws { begin(); writer.writeSigned(Int64(value)) }
    mutating func encode(_ value: Int8) throws { begin(); writer.writeSigned(Int64(value)) }
    mutating func encode(_ value: Int16) throws { begin(); writer.writeSigned(Int64(value)) }
    mutating func encode(_ value: Int32) throws { begin(); writer.writeSigned(Int64(value)) }
    mutating func encode(_ value: Int64) throws { begin(); writer.writeSigned(value) }
    mutating func encode(_ value: UInt) throws { begin(); writer.writeUnsignedValue(UInt64(value)) }
    mutating func encode(_ value: UInt8) throws { begin(); writer.writeUnsignedValue(UInt64(value)) }
    mutating func encode(_ value: UInt16) throws { begin(); writer.writeUnsignedValue(UInt64(value)) }
    mutating func encode(_ value: UInt32) throws { begin(); writer.writeUnsignedValue(UInt64(value)) }
    mutating func encode(_ value: UInt64) throws { begin(); writer.writeUnsignedValue(value) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        begin()
        try writer.encodeValue(value, depth: depth, codingPath: codingPath)
    }
}

// MARK: - Reading

/// A compact document being read: values are found by their offset and read in place.
private final class CompactReader {
    let bytes: [UInt8]
    let userInfo: [CodingUserInfoKey: any Sendable]

    init(_ bytes: [UInt8], userInfo: [CodingUserInfoKey: any Sendable]) {
        self.bytes = bytes
        self.userInfo = userInfo
    }

    func corrupted(_ codingPath: [any CodingKey], _ description: String) -> DecodingError {
        DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: description))
    }

    func tag(at offset: Int, _ codingPath: @autoclosure () -> [any CodingKey]) throws -> Tag {
        guard offset < bytes.count else { throw corrupted(codingPath(), "the document ends early") }
        guard let tag = Tag(rawValue: bytes[offset]) else { throw corrupted(codingPath(), "unknown tag \(bytes[offset]) at byte \(offset)") }
        return tag
    }

    /// The LEB128 number at `offset`, and the offset after it.
    func unsigned(at offset: Int, _ codingPath: @autoclosure () -> [any CodingKey]) throws -> (UInt64, Int) {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        var offset = offset
        while true {
            guard offset < bytes.count, shift < 64 else { throw corrupted(codingPath(), "a number runs past the document") }
            let byte = bytes[offset]
            value |= UInt64(byte & 0x7F) << shift
            offset += 1
            if byte & 0x80 == 0 { return (value, offset) }
            shift += 7
        }
    }

    /// The string whose length is at `offset`, and the offset after it.
    func string(at offset: Int, _ codingPath: @autoclosure () -> [any CodingKey]) throws -> (String, Int) {
        let (length, start) = try unsigned(at: offset, codingPath())
        guard length <= UInt64(bytes.count - start) else { throw corrupted(codingPath(), "a string runs past the document") }
        let end = start + Int(length)
        return (String(decoding: bytes[start..<end], as: UTF8.self), end)
    }

    /// Where the key of the entry at `offset` lies and its value's offset; `nil` at the end.
    func key(at offset: Int, _ codingPath: @autoclosure () -> [any CodingKey]) throws -> (key: Range<Int>?, next: Int) {
        guard offset < bytes.count else { throw corrupted(codingPath(), "the document ends early") }
        if bytes[offset] == 0 { return (nil, offset + 1) }
        let (stored, start) = try unsigned(at: offset, codingPath())
        guard stored >= 1, stored - 1 <= UInt64(bytes.count - start) else { throw corrupted(codingPath(), "a key runs past the document") }
        let end = start + Int(stored - 1)
        return (start..<end, end)
    }

    /// The offset just after the value at `offset`.
    func skip(at offset: Int, _ codingPath: @autoclosure () -> [any CodingKey]) throws -> Int {
        switch try tag(at: offset, codingPath()) {
        case .null, .falseValue, .trueValue: return offset + 1
        case .signed, .unsigned: return try unsigned(at: offset + 1, codingPath()).1
        case .double: return offset + 9
        case .float: return offset + 5
        case .string:
            let (length, start) = try unsigned(at: offset + 1, codingPath())
            guard length <= UInt64(bytes.count - start) else { throw corrupted(codingPath(), "a string runs past the document") }
            return start + Int(length)
        case .keyed:
            var next = offset + 1
            while true {
                let (key, valueOffset) = try key(at: next, codingPath())
                guard key != nil else { return valueOffset }
                next = try skip(at: valueOffset, codingPath())
            }
        case .unkeyed:
            var next = offset + 1
            while try tag(at: next, codingPath()) != .end { next = try skip(at: next, codingPath()) }
            return next + 1
        case .end: throw corrupted(codingPath(), "a container ends where a value was expected")
        }
    }

    func littleEndian(_ count: Int, at offset: Int, _ codingPath: @autoclosure () -> [any CodingKey]) throws -> UInt64 {
        guard offset + count <= bytes.count else { throw corrupted(codingPath(), "the document ends early") }
        var bits: UInt64 = 0
        for index in 0..<count { bits |= UInt64(bytes[offset + index]) << (8 * UInt64(index)) }
        return bits
    }

    func int64(at offset: Int, _ codingPath: @autoclosure () -> [any CodingKey]) throws -> Int64 {
        switch try tag(at: offset, codingPath()) {
        case .signed:
            let raw = try unsigned(at: offset + 1, codingPath()).0
            return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
        case .unsigned:
            let raw = try unsigned(at: offset + 1, codingPath()).0
            guard raw <= UInt64(Int64.max) else { throw corrupted(codingPath(), "\(raw) does not fit") }
            return Int64(raw)
        default: throw corrupted(codingPath(), "expected an integer")
        }
    }

    func uint64(at offset: Int, _ codingPath: @autoclosure () -> [any CodingKey]) throws -> UInt64 {
        switch try tag(at: offset, codingPath()) {
        case .unsigned: return try unsigned(at: offset + 1, codingPath()).0
        case .signed:
            let value = try int64(at: offset, codingPath())
            guard value >= 0 else { throw corrupted(codingPath(), "\(value) is negative") }
            return UInt64(value)
        default: throw corrupted(codingPath(), "expected an integer")
        }
    }

    func integer<T: FixedWidthInteger>(_ type: T.Type, at offset: Int, _ codingPath: @autoclosure () -> [any CodingKey]) throws -> T {
        if T.isSigned {
            let value = try int64(at: offset, codingPath())
            guard let fitted = T(exactly: value) else { throw corrupted(codingPath(), "\(value) does not fit \(T.self)") }
            return fitted
        }
        let value = try uint64(at: offset, codingPath())
        guard let fitted = T(exactly: value) else { throw corrupted(codingPath(), "\(value) does not fit \(T.self)") }
        return fitted
    }

    func bool(at offset: Int, _ codingPath: @autoclosure () -> [any CodingKey]) throws -> Bool {
        switch try tag(at: offset, codingPath()) {
        case .trueValue: return true
        case .falseValue: return false
        default: throw corrupted(codingPath(), "expected a Bool")
        }
    }

    func double(at offset: Int, _ codingPath: @autoclosure () -> [any CodingKey]) throws -> Double {
        switch try tag(at: offset, codingPath()) {
        case .double:
            return Double(bitPattern: try littleEndian(8, at: offset + 1, codingPath()))
        case .float: return Double(try float(at: offset, codingPath()))
        case .signed, .unsigned: return Double(try int64(at: offset, codingPath()))
        default: throw corrupted(codingPath(), "expected a number")
        }
    }

    func float(at offset: Int, _ codingPath: @autoclosure () -> [any CodingKey]) throws -> Float {
        switch try tag(at: offset, codingPath()) {
        case .float:
            return Float(bitPattern: UInt32(truncatingIfNeeded: try littleEndian(4, at: offset + 1, codingPath())))
        case .double: return Float(try double(at: offset, codingPath()))
        default: throw corrupted(codingPath(), "expected a Float")
        }
    }

    func stringValue(at offset: Int, _ codingPath: @autoclosure () -> [any CodingKey]) throws -> String {
        guard try tag(at: offset, codingPath()) == .string else { throw corrupted(codingPath(), "expected a String") }
        return try string(at: offset + 1, codingPath()).0
    }

    func isNil(at offset: Int, _ codingPath: @autoclosure () -> [any CodingKey]) throws -> Bool {
        try tag(at: offset, codingPath()) == .null
    }

    func decodeValue<T: Decodable>(_ type: T.Type, at offset: Int, codingPath: @autoclosure () -> [any CodingKey]) throws -> T {
        if T.self == String.self, let value = try stringValue(at: offset, codingPath()) as? T { return value }
        if T.self == Int.self, let value = try integer(Int.self, at: offset, codingPath()) as? T { return value }
        if T.self == Bool.self, let value = try bool(at: offset, codingPath()) as? T { return value }
        if T.self == Double.self, let value = try double(at: offset, codingPath()) as? T { return value }
        return try T(from: CompactValueDecoder(reader: self, offset: offset, codingPath: codingPath()))
    }
}

private struct CompactValueDecoder: Decoder {
    let reader: CompactReader
    let offset: Int
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { reader.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(try CompactKeyedDecoder<Key>(reader: reader, offset: offset, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try CompactUnkeyedDecoder(reader: reader, offset: offset, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        CompactSingleValueDecoder(reader: reader, offset: offset, codingPath: codingPath)
    }
}

private struct CompactKeyedDecoder<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let reader: CompactReader
    let codingPath: [any CodingKey]
    private let start: Int

    init(reader: CompactReader, offset: Int, codingPath: [any CodingKey]) throws {
        self.reader = reader
        self.codingPath = codingPath
        guard try reader.tag(at: offset, codingPath) == .keyed else { throw reader.corrupted(codingPath, "expected a keyed container") }
        start = offset + 1
    }

    /// The offset of the value of the first entry whose key `matches`, or `nil`.
    private func firstValue(where matches: (ArraySlice<UInt8>) -> Bool) throws -> Int? {
        var next = start
        while true {
            let (key, valueOffset) = try reader.key(at: next, codingPath)
            guard let key else { return nil }
            if matches(reader.bytes[key]) { return valueOffset }
            next = try reader.skip(at: valueOffset, codingPath)
        }
    }

    var allKeys: [Key] {
        var keys: [Key] = []
        // The document was checked whole when decoding began, so reading it cannot fail here.
        _ = try? firstValue { name in
            if let key = Key(stringValue: String(decoding: name, as: UTF8.self)) { keys.append(key) }
            return false
        }
        return keys
    }

    func contains(_ key: Key) -> Bool {
        let name = key.stringValue
        return (try? firstValue { name.utf8.elementsEqual($0) }) != nil
    }

    private func offset(of key: Key) throws -> Int {
        let name = key.stringValue
        guard let offset = try firstValue(where: { name.utf8.elementsEqual($0) }) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no value for “\(name)”"))
        }
        return offset
    }

    func decodeNil(forKey key: Key) throws -> Bool { try reader.isNil(at: offset(of: key), codingPath + [key]) }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try reader.bool(at: offset(of: key), codingPath + [key]) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try reader.stringValue(at: offset(of: key), codingPath + [key]) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try reader.double(at: offset(of: key), codingPath + [key]) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try reader.float(at: offset(of: key), codingPath + [key]) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try reader.integer(type, at: offset(of: key), codingPath + [key]) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try reader.integer(type, at: offset(of: key), codingPath + [key]) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try reader.integer(type, at: offset(of: key), codingPath + [key]) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try reader.integer(type, at: offset(of: key), codingPath + [key]) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try reader.integer(type, at: offset(of: key), codingPath + [key]) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try reader.integer(type, at: offset(of: key), codingPath + [key]) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try reader.integer(type, at: offset(of: key), codingPath + [key]) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try reader.integer(type, at: offset(of: key), codingPath + [key]) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try reader.integer(type, at: offset(of: key), codingPath + [key]) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try reader.integer(type, at: offset(of: key), codingPath + [key]) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try reader.decodeValue(type, at: offset(of: key), codingPath: codingPath + [key])
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        KeyedDecodingContainer(try CompactKeyedDecoder<NestedKey>(reader: reader, offset: offset(of: key), codingPath: codingPath + [key]))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try CompactUnkeyedDecoder(reader: reader, offset: offset(of: key), codingPath: codingPath + [key])
    }

    func superDecoder() throws -> any Decoder {
        guard let offset = try firstValue(where: { "super".utf8.elementsEqual($0) }) else { throw reader.corrupted(codingPath, "no value for “super”") }
        return CompactValueDecoder(reader: reader, offset: offset, codingPath: codingPath)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        CompactValueDecoder(reader: reader, offset: try offset(of: key), codingPath: codingPath + [key])
    }
}

private struct CompactUnkeyedDecoder: UnkeyedDecodingContainer {
    let reader: CompactReader
    let codingPath: [any CodingKey]
    private let offsets: [Int]
    private(set) var currentIndex = 0

    init(reader: CompactReader, offset: Int, codingPath: [any CodingKey]) throws {
        self.reader = reader
        self.codingPath = codingPath
        guard try reader.tag(at: offset, codingPath) == .unkeyed else { throw reader.corrupted(codingPath, "expected an unkeyed container") }
        var offsets: [Int] = []
        var next = offset + 1
        while try reader.tag(at: next, codingPath) != .end {
            offsets.append(next)
            next = try reader.skip(at: next, codingPath)
        }
        self.offsets = offsets
    }

    var count: Int? { offsets.count }
    var isAtEnd: Bool { currentIndex >= offsets.count }

    private mutating func next() throws -> Int {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(Any.self, .init(codingPath: codingPath, debugDescription: "the container has no more values"))
        }
        defer { currentIndex += 1 }
        return offsets[currentIndex]
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, try reader.isNil(at: offsets[currentIndex], codingPath) else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try reader.bool(at: next(), codingPath) }
    mutating func decode(_ type: String.Type) throws -> String { try reader.stringValue(at: next(), codingPath) }
    mutating func decode(_ type: Double.Type) throws -> Double { try reader.double(at: next(), codingPath) }
    mutating func decode(_ type: Float.Type) throws -> Float { try reader.float(at: next(), codingPath) }
    mutating func decode(_ type: Int.Type) throws -> Int { try reader.integer(type, at: next(), codingPath) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try reader.integer(type, at: next(), codingPath) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try reader.integer(type, at: next(), codingPath) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try reader.integer(type, at: next(), codingPath) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try reader.integer(type, at: next(), codingPath) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try reader.integer(type, at: next(), codingPath) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try reader.integer(type, at: next(), codingPath) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try reader.integer(type, at: next(), codingPath) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try reader.integer(type, at: next(), codingPath) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try reader.integer(type, at: next(), codingPath) }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try reader.decodeValue(type, at: next(), codingPath: codingPath)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        KeyedDecodingContainer(try CompactKeyedDecoder<NestedKey>(reader: reader, offset: next(), codingPath: codingPath))
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try CompactUnkeyedDecoder(reader: reader, offset: next(), codingPath: codingPath)
    }

    mutating func superDecoder() throws -> any Decoder {
        CompactValueDecoder(reader: reader, offset: try next(), codingPath: codingPath)
    }
}

private struct CompactSingleValueDecoder: SingleValueDecodingContainer {
    let reader: CompactReader
    let offset: Int
    let codingPath: [any CodingKey]

    func decodeNil() -> Bool { (try? reader.isNil(at: offset, codingPath)) ?? false }
    func decode(_ type: Bool.Type) throws -> Bool { try reader.bool(at: offset, codingPath) }
    func decode(_ type: String.Type) throws -> String { try reader.stringValue(at: offset, codingPath) }
    func decode(_ type: Double.Type) throws -> Double { try reader.double(at: offset, codingPath) }
    func decode(_ type: Float.Type) throws -> Float { try reader.float(at: offset, codingPath) }
    func decode(_ type: Int.Type) throws -> Int { try reader.integer(type, at: offset, codingPath) }
    func decode(_ type: Int8.Type) throws -> Int8 { try reader.integer(type, at: offset, codingPath) }
    func decode(_ type: Int16.Type) throws -> Int16 { try reader.integer(type, at: offset, codingPath) }
    func decode(_ type: Int32.Type) throws -> Int32 { try reader.integer(type, at: offset, codingPath) }
    func decode(_ type: Int64.Type) throws -> Int64 { try reader.integer(type, at: offset, codingPath) }
    func decode(_ type: UInt.Type) throws -> UInt { try reader.integer(type, at: offset, codingPath) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try reader.integer(type, at: offset, codingPath) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try reader.integer(type, at: offset, codingPath) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try reader.integer(type, at: offset, codingPath) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try reader.integer(type, at: offset, codingPath) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try reader.decodeValue(type, at: offset, codingPath: codingPath)
    }
}
