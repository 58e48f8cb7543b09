#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A runtime warning: something a program did that the store tolerated but a developer should see.
public struct Diagnostic: Sendable, Hashable, Codable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// A state machine received an event its current state does not accept; nothing changed.
        case invalidTransition
        /// An action addressed a child (an optional child or an element of a collection) that
        /// is not in the state; nothing changed.
        case missingChild
        /// An effect threw an error that no handler was given for.
        case unhandledEffectError
        /// `send` was called on a store while it was reducing or notifying on the same thread; the
        /// action was queued behind the current one.
        case reentrantSend
        /// An action was sent to a store that was already shut down; it was dropped.
        case sendAfterShutdown
        /// An effect's `Send` was used after the effect had finished (it was kept, or handed to
        /// an unstructured task); the action was dropped.
        case sendAfterEffectFinished
        /// Work an action set in motion failed.
        case failure
    }

    /// What went wrong.
    public let kind: Kind
    /// A one-line explanation a person can act on.
    public var message: String {
        switch text {
        case .written(let message): message
        case .rendered(let render): render()
        }
    }
    /// Why, in words for the person who caused it (the rule that refused an action), when the
    /// diagnostic has such a reason; front ends show it instead of the full message.
    public let reason: String?
    /// The message, or what writes it when it is read: a refused action costs a replay, or a
    /// store that ignores diagnostics, no rendering of its values (a read renders it again).
    private let text: Text

    /// Creates a diagnostic with an explanation.
    public init(_ kind: Kind, _ message: String, reason: String? = nil) {
        self.kind = kind
        text = .written(message)
        self.reason = reason
    }

    /// A diagnostic whose message `render` writes when it is first read.
    @usableFromInline
    init(_ kind: Kind, reason: String?, rendering render: @escaping @Sendable () -> String) {
        self.kind = kind
        text = .rendered(render)
        self.reason = reason
    }

    /// Whether both are of one kind, with one message and one reason.
    public static func == (lhs: Diagnostic, rhs: Diagnostic) -> Bool {
        lhs.kind == rhs.kind && lhs.reason == rhs.reason && lhs.message == rhs.message
    }

    /// Hashes the kind, the message and the reason.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(message)
        hasher.combine(reason)
    }

    private enum CodingKeys: String, CodingKey {
        case kind, message, reason
    }

    /// Reads `{"kind": …, "message": …, "reason": …}`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            try container.decode(Kind.self, forKey: .kind), try container.decode(String.self, forKey: .message),
            reason: try container.decodeIfPresent(String.self, forKey: .reason))
    }

    /// Writes `{"kind": …, "message": …, "reason": …}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        try container.encode(message, forKey: .message)
        try container.encodeIfPresent(reason, forKey: .reason)
    }

    private enum Text: Sendable {
        case written(String)
        case rendered(@Sendable () -> String)
    }

    /// `"<kind>: <message>"`.
    public var description: String { "\(kind.rawValue): \(message)" }

    /// An event the current state of a feature does not accept.
    public static func invalidTransition(action: some Sendable, state: some Sendable, reason: String? = nil) -> Diagnostic {
        Diagnostic(.invalidTransition, reason: reason) {
            "\(ValueRenderer.oneLine(action)) is not valid in state \(ValueRenderer.oneLine(state))" + (reason.map { ": \($0)" } ?? "")
        }
    }

    /// A failure the state took in.
    public static func failure(action: some Sendable, reason: String) -> Diagnostic {
        Diagnostic(.failure, reason: reason) { "\(ValueRenderer.oneLine(action)) reports a failure: \(reason)" }
    }

    /// An action for a child that is not there; `reason` says it in words for the user.
    public static func missingChild(action: some Sendable, child: String, reason: String? = nil) -> Diagnostic {
        missingChild(action: action, reason: reason) { child }
    }

    /// ``missingChild(action:child:reason:)`` naming the child when the message is read.
    @usableFromInline
    static func missingChild(action: some Sendable, reason: String?, child: @escaping @Sendable () -> String) -> Diagnostic {
        Diagnostic(.missingChild, reason: reason) {
            "\(ValueRenderer.oneLine(action)) was sent to \(child()), which is not in the state" + (reason.map { ": \($0)" } ?? "")
        }
    }
}

/// The channel through which a store reports ``Diagnostic``s.
public struct Diagnostics: Sendable {
    private let handler: @Sendable (Diagnostic) -> Void

    /// A channel that hands each diagnostic to `handler`, on the thread that produced it.
    public init(_ handler: @escaping @Sendable (Diagnostic) -> Void) {
        self.handler = handler
    }

    /// Reports a diagnostic.
    public func report(_ diagnostic: Diagnostic) {
        handler(diagnostic)
    }

    /// Prints `warning: <kind>: <message>` to standard error.
    public static let standardError = Diagnostics { diagnostic in
        StandardStream.error.write("warning: \(diagnostic)\n")
    }

    /// Drops every diagnostic.
    public static let ignore = Diagnostics { _ in }

    /// Appends every diagnostic to `log`.
    public static func collecting(into log: DiagnosticLog) -> Diagnostics {
        Diagnostics { log.append($0) }
    }
}

/// A thread-safe list of the diagnostics a store reported, for tests and front ends.
public final class DiagnosticLog: Sendable {
    private let storage = Locked<[Diagnostic]>([])

    /// Creates an empty log.
    public init() {}

    /// Records a diagnostic.
    public func append(_ diagnostic: Diagnostic) {
        storage.withLock { $0.append(diagnostic) }
    }

    /// Everything recorded so far, oldest first.
    public var entries: [Diagnostic] {
        storage.withLock { $0 }
    }

    /// Returns everything recorded so far and empties the log.
    public func drain() -> [Diagnostic] {
        storage.withLock { entries in
            defer { entries.removeAll() }
            return entries
        }
    }
}

/// Unbuffered writes to the process's standard output or error, usable from any thread.
public struct StandardStream: Sendable {
    private let descriptor: Int32

    /// The process's standard output.
    public static let output = StandardStream(descriptor: 1)
    /// The process's standard error.
    public static let error = StandardStream(descriptor: 2)

    /// Writes `text` as UTF-8; a short write is retried, a failed one is dropped.
    public func write(_ text: String) {
        let bytes = Array(text.utf8)
        // Sound: `write(2)` reads at most `buffer.count` bytes of the buffer, alive in the closure.
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                #if canImport(Darwin)
                let written = Darwin.write(descriptor, base + offset, buffer.count - offset)
                #elseif canImport(Glibc)
                let written = Glibc.write(descriptor, base + offset, buffer.count - offset)
                #else
                let written = Musl.write(descriptor, base + offset, buffer.count - offset)
                #endif
                if written <= 0 { return }
                offset += written
            }
        }
    }
}
