import Dispatch
import StateStore

/// Copies a database's write-ahead log into the file on a connection and thread of its own.
final class Checkpointer: Sendable {
    private enum Phase {
        /// Nothing asked for since the last copy was finished.
        case idle
        /// The bulk of the log of this generation is queued or being copied here.
        case copying(generation: Int)
        /// The bulk is copied; the writers' connection copies the rest, unless the log started over
        /// since (the copy caught up with it): then it is a new log, whose bulk is copied here.
        case copied(generation: Int)
    }

    private let path: String
    /// Where checkpoints run, one at a time.
    let queue = DispatchQueue(label: "appcore.database.checkpoint")
    /// Whether the checkpointer is closed, and the copy's phase: never held during a copy.
    private let flags = Locked((isClosed: false, phase: Phase.idle))
    /// The checkpoint's connection, opened at the first checkpoint; used on ``queue`` only.
    private let connection = Locked<Connection?>(nil)

    init(path: String) {
        self.path = path
    }

    /// Asked when the log of `logGeneration` has grown enough: starts copying its bulk here and
    /// answers `true`; once done, answers `false` once, and the caller copies the rest.
    func request(logGeneration: Int) -> Bool {
        enum Step { case copyHere, keepCopying, leaveToCaller }
        let step = flags.withLock { flags -> Step in
            guard !flags.isClosed else { return .leaveToCaller }
            switch flags.phase {
            case .copied(let generation) where generation == logGeneration:
                flags.phase = .idle
                return .leaveToCaller
            case .copying:
                return .keepCopying
            case .idle, .copied:
                flags.phase = .copying(generation: logGeneration)
                return .copyHere
            }
        }
        switch step {
        case .copyHere:
            queue.async { self.checkpoint() }
            return true
        case .keepCopying: return true
        case .leaveToCaller: return false
        }
    }

    private func checkpoint() {
        guard !flags.withLock({ $0.isClosed }) else { return }
        connection.withLock { connection in
            if connection == nil {
                connection = Self.open(path)
                // Without a connection of its own, it gives up for good, and the database's
                // connection copies the log as it did before there was a checkpointer.
                if connection == nil { flags.withLock { $0.isClosed = true } }
            }
            connection?.checkpoint()
        }
        flags.withLock { flags in
            if case .copying(let generation) = flags.phase { flags.phase = .copied(generation: generation) }
        }
    }

    /// A connection to `path` with its write-ahead log open; `nil` when it does not open.
    private static func open(_ path: String) -> Connection? {
        guard let connection = try? Connection.open(path: path) else { return nil }
        guard (try? connection.query("PRAGMA schema_version") { $0.int(0) }) != nil else {
            connection.close()
            return nil
        }
        return connection
    }

    /// Waits for a running or queued checkpoint, then closes: later requests return `false`.
    func close() {
        flags.withLock { $0.isClosed = true }
        queue.sync {
            connection.withLock { connection in
                connection?.close()
                connection = nil
            }
        }
    }

    /// Returns once every checkpoint asked for so far has run.
    func waitUntilIdle() async {
        await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
    }
}
