import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// A shell's standard output, written a whole piece (a line, a transcript) at a time from any
/// task, never torn: a piece that cannot be written whole (a full disk, an I/O error) is taken
/// back from a file it went to, and nothing more is written after it.
///
/// The first failure runs ``onFailure`` once: ``Failure/readerGone`` when the reader went away
/// (`| head -1`, which a shell ends quietly with status 141), ``Failure/cannotWrite(_:)``
/// otherwise, which a shell says on standard error before it ends non-zero.
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
    }

    private let descriptor: Int32
    /// Whether the descriptor is a regular file (a torn piece can be taken back from it).
    private let isFile: Bool
    private let state = Locked(State())

    /// The process's standard output (or another descriptor).
    public init(descriptor: Int32 = 1) {
        self.descriptor = descriptor
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

    /// Writes `text` whole; `false` (and nothing of it left in a file) when it could not be.
    @discardableResult
    public func write(_ text: String) -> Bool {
        let (failure, onFailure) = state.withLock { state -> (Failure?, @Sendable (Failure) -> Void) in
            guard state.failure == nil else { return (nil, { _ in }) }
            state.failure = Self.writeWhole(Array(text.utf8), to: descriptor, isFile: isFile)
            return (state.failure, state.onFailure)
        }
        guard let failure else { return self.failure == nil }
        onFailure(failure)
        return false
    }

    /// Writes `bytes` to `descriptor`, retrying short writes; on failure, a regular file is cut
    /// back to its length before, so its last line stays whole.
    private static func writeWhole(_ bytes: [UInt8], to descriptor: Int32, isFile: Bool) -> Failure? {
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
            if offset > 0, let lengthBefore { _ = ftruncate(descriptor, lengthBefore) }
            return .cannotWrite(written == 0 ? "nothing could be written" : String(cString: strerror(error)))
        }
        return nil
    }
}
