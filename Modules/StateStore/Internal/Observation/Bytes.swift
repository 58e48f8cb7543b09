/// Whether the `count` bytes at `a` and at `b` are the same; the caller vouches that both hold at
/// least `count` readable bytes (unaligned loads, so any address will do).
@inlinable
func sameBytes(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, count: Int) -> Bool {
    var offset = 0
    while offset + 8 <= count {
        guard a.loadUnaligned(fromByteOffset: offset, as: UInt64.self) == b.loadUnaligned(fromByteOffset: offset, as: UInt64.self) else {
            return false
        }
        offset += 8
    }
    while offset < count {
        guard a.load(fromByteOffset: offset, as: UInt8.self) == b.load(fromByteOffset: offset, as: UInt8.self) else { return false }
        offset += 1
    }
    return true
}

/// Where a stored property lies in the bytes of a value.
@usableFromInline
struct ByteRange: Sendable {
    @usableFromInline let offset: Int
    @usableFromInline let count: Int

    /// The bytes of the property `keyPath` leads to, if it is stored in `Root` itself.
    @inlinable
    init?<Root, Value>(_ keyPath: KeyPath<Root, Value>) {
        guard let offset = MemoryLayout<Root>.offset(of: keyPath) else { return nil }
        self.offset = offset
        count = MemoryLayout<Value>.size
    }
}
