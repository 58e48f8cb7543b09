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
///
/// A front end must not read its input with a blocking call (`readLine()`) from a task: the read
/// would hold one of the few threads Swift concurrency shares, and on a small machine the
/// effects, the host's closing and a signal's handler would wait for the next line to arrive.
/// Here a dedicated thread blocks instead. It reads a little ahead (at most 256 lines or 1 MiB)
/// so that lines already sent are handed out without waking a thread per line, and stops there:
/// a fast producer is never read into memory as a whole.
///
/// ```swift
/// for await line in InputLines() { handle(line) } // each line's bytes, without its line feed
/// ```
public struct InputLines: AsyncSequence, Sendable {
    /// A line's bytes, without the line feed.
    public typealias Element = [UInt8]

    private let reader: Reader

    /// The lines of file descriptor `descriptor` (standard input by default).
    public init(descriptor: Int32 = 0) {
        reader = Reader(descriptor: descriptor)
    }

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

        /// The next line, or `nil` at the end of the input, without leaving the caller's actor:
        /// what `for await` calls, so a loop on the main actor takes a line read ahead with no
        /// thread hop (two hops a line otherwise: about a tenth of `appcore-serve`'s time).
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
            /// The reader reached the end of the input (or failed to read).
            var ended = false
            var started = false
            /// The reader waits for room.
            var readerWaits = false
            /// The one consumer waiting for a line, when none was read ahead.
            var consumer: CheckedContinuation<[UInt8]?, Never>?

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

        /// Read by the reader thread only.
        nonisolated(unsafe) private let stream: UnsafeMutablePointer<FILE>?
        private let state = Locked(State())
        private let room = DispatchSemaphore(value: 0)

        init(descriptor: Int32) {
            stream = fdopen(dup(descriptor), "r")
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
            while true {
                let line = readLine()
                let (consumer, full) = state.withLock { state -> (CheckedContinuation<[UInt8]?, Never>?, Bool) in
                    if let consumer = state.consumer {
                        state.consumer = nil
                        if line == nil { state.ended = true }
                        return (consumer, false)
                    }
                    guard let line else {
                        state.ended = true
                        return (nil, false)
                    }
                    state.lines.append(line)
                    state.bytes += line.count
                    state.readerWaits = state.count >= Self.lineLimit || state.bytes >= Self.byteLimit
                    return (nil, state.readerWaits)
                }
                consumer?.resume(returning: line)
                if line == nil { return }
                if full { room.wait() }
            }
        }

        private func readLine() -> [UInt8]? {
            guard let stream else { return nil }
            var buffer: UnsafeMutablePointer<CChar>?
            var capacity = 0
            defer { free(buffer) }
            let count = getline(&buffer, &capacity, stream)
            guard count >= 0, let buffer else { return nil }
            var bytes = Array(UnsafeBufferPointer(start: UnsafeRawPointer(buffer).assumingMemoryBound(to: UInt8.self), count: count))
            if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
            return bytes
        }
    }
}
