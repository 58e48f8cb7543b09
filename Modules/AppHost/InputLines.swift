import Foundation
import StateStore

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The lines of standard input (or another file descriptor), read on a thread of their own and
/// handed out one at a time as an async sequence.
public struct InputLines: AsyncSequence, Sendable {
    /// A line's bytes, without the line feed.
    public typealias Element = [UInt8]

    private let reader: Reader
    /// The longest line handed out whole, in bytes; a longer one arrives cut to one byte more.
    public let maximumLineLength: Int

    /// The most a line holds by default: 1 MiB, as much as an intent (`Intent.maximumJSONLength`).
    public static let defaultMaximumLineLength = 1 << 20

    /// The lines of file descriptor `descriptor` (standard input by default; the descriptor is
    /// duplicated, so the caller may close its own), each at most `maximumLineLength` bytes.
    public init(descriptor: Int32 = 0, maximumLineLength: Int = InputLines.defaultMaximumLineLength) {
        self.maximumLineLength = Swift.max(1, maximumLineLength)
        reader = Reader(descriptor: descriptor, maximumLineLength: self.maximumLineLength)
    }

    /// Whether `line`, as this sequence handed it out, was longer than ``maximumLineLength``
    /// (and so is only its start).
    public func isTooLong(_ line: [UInt8]) -> Bool {
        line.count > maximumLineLength
    }

    /// Whether a line was read ahead and waits: the next one is handed out without waiting.
    public var hasLineReady: Bool { reader.hasLineReady }

    /// Starts reading ahead now, rather than at the first line asked for.
    public func readAhead() { reader.start() }

    /// Returns once the input has ended: every line is read ahead (or reading failed).
    public func ended() async { await reader.ended() }

    /// An iterator over the lines; all iterators share the one reader.
    public func makeAsyncIterator() -> Iterator {
        Iterator(reader: reader)
    }

    /// Hands out the lines.
    public struct Iterator: AsyncIteratorProtocol {
        fileprivate let reader: Reader

        /// The next line, or `nil` at the end of the input.
        public mutating func next() async -> [UInt8]? {
            await reader.next()
        }

        /// The next line, or `nil` at the end of the input, without leaving the caller's actor.
        public mutating func next(isolation actor: isolated (any Actor)?) async -> [UInt8]? {
            await reader.next()
        }
    }

    /// The thread that reads, and the lines it read ahead.
    fileprivate final class Reader: Sendable {
        /// How far the thread reads ahead; once there, it waits until a quarter is left.
        private static let lineLimit = 256
        private static let byteLimit = 1 << 20

        private struct State {
            var lines: [[UInt8]] = []
            var head = 0
            var bytes = 0
            var ended = false
            var started = false
            var readerWaits = false
            /// The one consumer waiting for a line, when none was read ahead.
            var consumer: CheckedContinuation<[UInt8]?, Never>?
            /// Those waiting for the end of the input (``ended()``).
            var endWaiters: [CheckedContinuation<Void, Never>] = []

            var count: Int { lines.count - head }

            mutating func take() -> [UInt8] {
                let line = lines[head]
                head += 1
                bytes -= line.count
                // Lines handed out leave the array once they are half of it, so memory stays
                // bounded however long the input runs without the array ever emptying.
                if head == lines.count {
                    lines.removeAll(keepingCapacity: true)
                    head = 0
                } else if head >= 64, head * 2 >= lines.count {
                    lines.removeFirst(head)
                    head = 0
                }
                return line
            }
        }

        /// The reader's own copy of the descriptor, closed at the end of the input.
        private let descriptor: Int32
        private let maximumLineLength: Int
        private let state = Locked(State())
        private let room = DispatchSemaphore(value: 0)

        init(descriptor: Int32, maximumLineLength: Int) {
            self.descriptor = dup(descriptor)
            self.maximumLineLength = maximumLineLength
        }

        deinit {
            // The thread closes the copy when the input ends; one never started has not.
            if !state.withLock({ $0.started }) { close(descriptor) }
        }

        var hasLineReady: Bool { state.withLock { $0.count > 0 } }

        func start() {
            let isFirst = state.withLock { state -> Bool in
                defer { state.started = true }
                return !state.started
            }
            if isFirst { Thread { [self] in run() }.start() }
        }

        func ended() async {
            start()
            await withCheckedContinuation { continuation in
                let isOver = state.withLock { state -> Bool in
                    if state.ended { return true }
                    state.endWaiters.append(continuation)
                    return false
                }
                if isOver { continuation.resume() }
            }
        }

        nonisolated(nonsending) func next() async -> [UInt8]? {
            enum Next { case line([UInt8]), end, wait }
            let (next, start, wakeReader) = state.withLock { state -> (Next, Bool, Bool) in
                defer { state.started = true }
                guard state.count > 0 else { return (state.ended ? .end : .wait, !state.started, false) }
                let line = state.take()
                let wake = state.readerWaits && state.count <= Self.lineLimit / 4 && state.bytes <= Self.byteLimit / 4
                if wake { state.readerWaits = false }
                return (.line(line), false, wake)
            }
            if start { Thread { [self] in run() }.start() }
            if wakeReader { room.signal() }
            switch next {
            case .line(let line): return line
            case .end: return nil
            case .wait:
                return await withCheckedContinuation { continuation in
                    let now = state.withLock { state -> [UInt8]?? in
                        if state.count > 0 { return .some(state.take()) }
                        if state.ended { return .some(nil) }
                        state.consumer = continuation
                        return .none
                    }
                    if let now { continuation.resume(returning: now) }
                }
            }
        }

        private func run() {
            var input = BoundedLineReader(descriptor: descriptor, maximumLineLength: maximumLineLength)
            defer { close(descriptor) }
            while true {
                let line = input.next()
                let (consumer, full, endWaiters) = state.withLock {
                    state -> (CheckedContinuation<[UInt8]?, Never>?, Bool, [CheckedContinuation<Void, Never>]) in
                    var endWaiters: [CheckedContinuation<Void, Never>] = []
                    if line == nil {
                        state.ended = true
                        swap(&endWaiters, &state.endWaiters)
                    }
                    if let consumer = state.consumer {
                        state.consumer = nil
                        return (consumer, false, endWaiters)
                    }
                    guard let line else { return (nil, false, endWaiters) }
                    state.lines.append(line)
                    state.bytes += line.count
                    state.readerWaits = state.count >= Self.lineLimit || state.bytes >= Self.byteLimit
                    return (nil, state.readerWaits, endWaiters)
                }
                consumer?.resume(returning: line)
                for waiter in endWaiters { waiter.resume() }
                if line == nil { return }
                if full { room.wait() }
            }
        }
    }
}

/// Lines read from a file descriptor a block at a time, none held past a length: the bytes of a
/// longer line beyond one more than the length are dropped as they are read.
struct BoundedLineReader {
    private let descriptor: Int32
    private let maximumLineLength: Int
    private var block = [UInt8](repeating: 0, count: 64 * 1024)
    private var start = 0
    private var end = 0
    private var ended = false

    init(descriptor: Int32, maximumLineLength: Int) {
        self.descriptor = descriptor
        self.maximumLineLength = maximumLineLength
    }

    /// The next line without its line feed, or `nil` at the end of the input or on an error.
    mutating func next() -> [UInt8]? {
        var line: [UInt8] = []
        var sawAny = false
        while true {
            if start == end {
                guard !ended, fill() else { return sawAny ? line : nil }
            }
            sawAny = true
            let feed = block[start..<end].firstIndex(of: UInt8(ascii: "\n"))
            let piece = block[start..<(feed ?? end)]
            let room = maximumLineLength + 1 - line.count
            if room > 0 { line.append(contentsOf: piece.prefix(room)) }
            if let feed {
                start = feed + 1
                return line
            }
            start = end
        }
    }

    /// Reads the next block; `false` at the end of the input.
    private mutating func fill() -> Bool {
        while true {
            // The C boundary: read(2) writes at most the buffer's count bytes into its storage.
            let count = block.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                (start, end) = (0, count)
                return true
            }
            if count < 0, errno == EINTR { continue }
            ended = true
            return false
        }
    }
}
