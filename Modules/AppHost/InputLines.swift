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
/// Here a dedicated thread blocks instead, and reads a line only when one is asked for, so a
/// fast producer is never read ahead into memory.
///
/// ```swift
/// for await line in InputLines() { … }   // each line's bytes, without its line feed
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
    }

    /// The thread that reads, one line per request.
    fileprivate final class Reader: Sendable {
        private let stream: Locked<UnsafeMutablePointer<FILE>?>
        private let requests = DispatchSemaphore(value: 0)
        private let waiting = Locked<CheckedContinuation<[UInt8]?, Never>?>(nil)
        private let started = Locked(false)
        /// Whether the input ended: later requests get `nil` at once.
        private let finished = Locked(false)

        init(descriptor: Int32) {
            stream = Locked(fdopen(dup(descriptor), "r"))
        }

        func next() async -> [UInt8]? {
            if finished.withLock({ $0 }) { return nil }
            let start = started.withLock { started in
                defer { started = true }
                return !started
            }
            if start { Thread { [self] in run() }.start() }
            return await withCheckedContinuation { continuation in
                waiting.withLock { $0 = continuation }
                requests.signal()
            }
        }

        private func run() {
            while true {
                requests.wait()
                let line = readLine()
                let continuation = waiting.withLock { waiting in
                    defer { waiting = nil }
                    return waiting
                }
                if line == nil { finished.withLock { $0 = true } }
                continuation?.resume(returning: line)
                if line == nil { return }
            }
        }

        private func readLine() -> [UInt8]? {
            guard let file = stream.withLock({ $0 }) else { return nil }
            var buffer: UnsafeMutablePointer<CChar>?
            var capacity = 0
            defer { free(buffer) }
            let count = getline(&buffer, &capacity, file)
            guard count >= 0, let buffer else { return nil }
            var bytes = Array(UnsafeBufferPointer(start: UnsafeRawPointer(buffer).assumingMemoryBound(to: UInt8.self), count: count))
            if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
            return bytes
        }
    }
}
