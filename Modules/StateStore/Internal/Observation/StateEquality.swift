/// `==` of a state type that is `Equatable`, found at run time; `nil` for another type.
@usableFromInline
struct StateEquality<State> {
    @usableFromInline let equal: (UnsafeRawPointer, UnsafeRawPointer) -> Bool

    /// Inlinable, so that a store made for a concrete state compares with that state's `==`
    /// directly (the cast is then known at compile time), not through its witness table.
    @inlinable
    init?() {
        guard let equatable = State.self as? any Equatable.Type else { return nil }
        equal = Self.equality(of: equatable)
    }

    @inlinable
    static func equality<Value: Equatable>(of _: Value.Type) -> (UnsafeRawPointer, UnsafeRawPointer) -> Bool {
        { before, now in
            // Sound: `Value` is `State` (the cast above), and the caller's pointers hold states.
            before.assumingMemoryBound(to: Value.self).pointee == now.assumingMemoryBound(to: Value.self).pointee
        }
    }

    /// Whether the states at `before` and `now` are equal: the same bytes, else `==`.
    @inlinable
    func same(_ before: UnsafeRawPointer, _ now: UnsafeRawPointer) -> Bool {
        sameBytes(before, now, count: MemoryLayout<State>.size) || equal(before, now)
    }
}
