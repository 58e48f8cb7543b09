/// Passes every action on unchanged.
public struct EchoMiddleware<State: Sendable, Action: Sendable>: Middleware {
    /// Creates the middleware.
    @inlinable
    public init() {}

    /// Passes `action` on.
    @inlinable
    public func handle(_ action: Action, context: MiddlewareContext<State, Action>) -> MiddlewareStep<Action> {
        .next(action)
    }
}

/// Where ``LoggingMiddleware`` writes its lines.
public struct LogSink: Sendable {
    private let writeLine: @Sendable (String) -> Void

    /// A sink that hands each line (without a trailing newline) to `write`.
    public init(_ write: @escaping @Sendable (String) -> Void) {
        writeLine = write
    }

    /// Writes one line.
    public func write(_ line: String) {
        writeLine(line)
    }

    /// Writes each line to standard error.
    public static let standardError = LogSink { StandardStream.error.write($0 + "\n") }
}

/// Writes one line per action before passing it on, with secrets redacted.
public struct LoggingMiddleware<State: Sendable, Action: Sendable>: Middleware {
    private let prefix: String
    private let redaction: Redaction
    private let sink: LogSink

    /// Logs to `sink`, each line starting with `prefix`.
    public init(prefix: String = "action", redaction: Redaction = .default, sink: LogSink = .standardError) {
        self.prefix = prefix
        self.redaction = redaction
        self.sink = sink
    }

    /// Logs `action` and passes it on.
    public func handle(_ action: Action, context: MiddlewareContext<State, Action>) -> MiddlewareStep<Action> {
        sink.write("\(prefix): \(ValueRenderer.oneLine(action, redaction: redaction))")
        return .next(action)
    }
}
