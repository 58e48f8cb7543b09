import Foundation
import Synchronization

/// Where new identifiers come from: injected, so tests and scripts get predictable ids.
public struct UUIDGenerator: Sendable {
    private let generate: @Sendable () -> UUID

    /// A generator that calls `generate` for each id.
    public init(_ generate: @escaping @Sendable () -> UUID) {
        self.generate = generate
    }

    /// A new identifier.
    public func callAsFunction() -> UUID {
        generate()
    }

    /// Random version-4 UUIDs from the system's secure generator (`getrandom` on Linux, where
    /// Foundation's `UUID()` opens, reads and closes `/dev/urandom` for every id).
    public static let live = UUIDGenerator {
        var generator = SystemRandomNumberGenerator()
        let (high, low) = (generator.next() as UInt64, generator.next() as UInt64)
        // Version 4 in the high half's 13th digit, the RFC 4122 variant atop the low half.
        return UUID(bits: (high & ~0xF000 | 0x4000, low & ~(0xC << 60) | 0x8 << 60))
    }

    /// Version-7 UUIDs (RFC 9562).
    public static let timeOrdered: UUIDGenerator = {
        // The millisecond of the last id and the counter within it.
        let last = Mutex<(milliseconds: UInt64, counter: UInt64)>((0, 0))
        return UUIDGenerator {
            let now = UInt64(max(0, Date().timeIntervalSince1970 * 1_000))
            let (milliseconds, counter) = last.withLock { last -> (UInt64, UInt64) in
                if now > last.milliseconds {
                    last = (now, 0)
                } else if last.counter < 0xFFF {
                    last.counter += 1
                } else {
                    // More than 4,096 ids in one millisecond (or the clock went back): borrow the
                    // next millisecond, so the order holds.
                    last = (last.milliseconds + 1, 0)
                }
                return last
            }
            var generator = SystemRandomNumberGenerator()
            let random: UInt64 = generator.next()
            // Time, version 7, counter; then the RFC 9562 variant atop the random bits.
            return UUID(bits: (milliseconds << 16 | 0x7000 | counter, random >> 2 | 0x8 << 60))
        }
    }()

    /// `00000000-0000-0000-0000-000000000001`, then `…0002`, and so on.
    public static func incrementing() -> UUIDGenerator {
        let counter = Mutex<UInt64>(0)
        return UUIDGenerator {
            let next = counter.withLock { value -> UInt64 in
                value += 1
                return value
            }
            return UUID(sequence: next)
        }
    }

    /// Always `uuid`.
    public static func constant(_ uuid: UUID) -> UUIDGenerator {
        UUIDGenerator { uuid }
    }
}

extension UUID {
    /// The UUID whose last 64 bits are `sequence` and whose other bits are zero.
    public init(sequence: UInt64) {
        self.init(bits: (0, sequence))
    }

    /// The last 64 bits: the `sequence` of ``init(sequence:)``.
    public var sequence: UInt64 {
        let u = uuid
        return [u.8, u.9, u.10, u.11, u.12, u.13, u.14, u.15].reduce(0) { $0 << 8 | UInt64($1) }
    }
}

/// Where "now" comes from: injected, so dates in tests and scripts are predictable.
public struct DateGenerator: Sendable {
    private let generate: @Sendable () -> Date

    /// A generator that calls `generate` for the current date.
    public init(_ generate: @escaping @Sendable () -> Date) {
        self.generate = generate
    }

    /// The current date.
    public func callAsFunction() -> Date {
        generate()
    }

    /// The system's wall clock.
    public static let live = DateGenerator { Date() }

    /// Always `date`.
    public static func constant(_ date: Date) -> DateGenerator {
        DateGenerator { date }
    }

    /// `start`, moved forward as `clock` moves.
    public static func following<C: Clock<Duration>>(_ clock: C, from start: Date) -> DateGenerator {
        let origin = clock.now
        return DateGenerator {
            let elapsed = origin.duration(to: clock.now)
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            return start.addingTimeInterval(seconds)
        }
    }
}
