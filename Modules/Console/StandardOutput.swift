import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// A shell's standard output, written a whole piece at a time from any task, never torn: a piece
/// that cannot be written whole is taken back from a file.
public final class StandardOutput: Sendable {
    /// Why standard output stopped taking writes.
    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        /// Its reader went away (a closed pipe).
        case readerGone
        /// Writing failed: the system's reason (“No space left on device”).
        case cannotWrite(String)

        /// One line for standard error.
        public var description: String {
            switch self {
            case .readerGone: "the reader of standard output went away"
            case .cannotWrite(let reason): "standard output could not be written (\(reason)); what was not written is not shown"
            }
        }
    }

    private struct State {
        var failure: Failure?
        var onFailure: @Sendable (Failure) -> Void = { _ in }
        /// What ``write(_:moreFollows:)`` held, to go out before the next piece written.
        var held: [UInt8] = []
        var pieceEnds: [Int] = []
        /// How many times what was held went out: a hold's deadline writes only its own pieces.
        var writesOfHeld: UInt64 = 0

        mutating func writeHeld(to descriptor: Int32, isFile: Bool) {
            failure = StandardOutput.writeWhole(held, pieceEnds: pieceEnds, to: descriptor, isFile: isFile)
            held.removeAll(keepingCapacity: held.count <= StandardOutput.holdLimit)
            pieceEnds.removeAll(keepingCapacity: true)
            writesOfHeld &+= 1
        }
    }

    /// The most ``write(_:moreFollows:)`` holds: past it, what is held is written anyway.
    public static let holdLimit = 64 * 1024
    /// The longest a piece is held by default (``holdTime``): 5 ms.
    public static let defaultHoldTime: Duration = .milliseconds(5)

    /// The longest a piece is held.
    public let holdTime: Duration
    private let descriptor: Int32
    /// Whether the descriptor is a regular file (a torn piece can be taken back from it).
    private let isFile: Bool
    private let state = Locked(State())

    /// The process's standard output (or another descriptor), holding a piece at most `holdTime`.
    public init(descriptor: Int32 = 1, holdTime: Duration = StandardOutput.defaultHoldTime) {
        self.descriptor = descriptor
        self.holdTime = holdTime
        var status = stat()
        isFile = fstat(descriptor, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG
    }

    /// What runs, once, when a write first fails.
    public var onFailure: @Sendable (Failure) -> Void {
        get { state.withLock { $0.onFailure } }
        set { state.withLock { $0.onFailure = newValue } }
    }

    /// Why writing stopped, once it has.
    public var failure: Failure? { state.withLock { $0.failure } }

    /// Writes `text` whole, after what was held.
    @discardableResult
    public func write(_ text: String) -> Bool {
        write(text, moreFollows: false)
    }

    /// Writes `text` whole after what was held, or with `moreFollows` holds it to go out with what
    /// follows (call ``flush()`` before quitting).
    @discardableResult
    public func write(_ text: String, moreFollows: Bool) -> Bool {
        let (failure, onFailure, deadlineFor) = state.withLock { state -> (Failure?, @Sendable (Failure) -> Void, UInt64?) in
            guard state.failure == nil else { return (nil, { _ in }, nil) }
            let startsHolding = state.held.isEmpty
            if !text.isEmpty {
                state.held.append(contentsOf: text.utf8)
                state.pieceEnds.append(state.held.count)
            }
            guard !state.held.isEmpty else { return (nil, { _ in }, nil) }
            if moreFollows, state.held.count < Self.holdLimit { return (nil, { _ in }, startsHolding ? state.writesOfHeld : nil) }
            state.writeHeld(to: descriptor, isFile: isFile)
            return (state.failure, state.onFailure, nil)
        }
        if let deadlineFor {
            _ = Deadlines.shared.add(after: holdTime) { [self] in writeHeldAtDeadline(deadlineFor) }
        }
        guard let failure else { return self.failure == nil }
        onFailure(failure)
        return false
    }

    /// Writes what ``write(_:moreFollows:)`` held; `false` when it could not be written.
    @discardableResult
    public func flush() -> Bool {
        write("", moreFollows: false)
    }

    /// Writes what is held, if it is still the pieces held after the `writesOfHeld`th write of them.
    private func writeHeldAtDeadline(_ writesOfHeld: UInt64) {
        let (failure, onFailure) = state.withLock { state -> (Failure?, @Sendable (Failure) -> Void) in
            guard state.failure == nil, state.writesOfHeld == writesOfHeld, !state.held.isEmpty else { return (nil, { _ in }) }
            state.writeHeld(to: descriptor, isFile: isFile)
            return (state.failure, state.onFailure)
        }
        if let failure { onFailure(failure) }
    }

    /// Writes `bytes` to `descriptor`, retrying short writes; on failure a regular file is cut back
    /// to the end of the last piece written whole.
    fileprivate static func writeWhole(_ bytes: [UInt8], pieceEnds: [Int], to descriptor: Int32, isFile: Bool) -> Failure? {
        var status = stat()
        let lengthBefore: off_t? = isFile && fstat(descriptor, &status) == 0 ? status.st_size : nil
        var offset = 0
        while offset < bytes.count {
            // The C boundary: write(2) reads at most the slice's count bytes from its storage.
            let written = bytes[offset...].withUnsafeBytes { buffer in
                #if canImport(Glibc)
                Glibc.write(descriptor, buffer.baseAddress, buffer.count)
                #elseif canImport(Darwin)
                Darwin.write(descriptor, buffer.baseAddress, buffer.count)
                #else
                Musl.write(descriptor, buffer.baseAddress, buffer.count)
                #endif
            }
            if written > 0 {
                offset += written
                continue
            }
            let error = errno
            if written < 0, error == EINTR { continue }
            if error == EPIPE { return .readerGone }
            // The pieces written whole stay; the one torn goes.
            if offset > 0, let lengthBefore { _ = ftruncate(descriptor, lengthBefore + off_t(pieceEnds.last { $0 <= offset } ?? 0)) }
            return .cannotWrite(written == 0 ? "nothing could be written" : String(cString: strerror(error)))
        }
        return nil
    }
}
