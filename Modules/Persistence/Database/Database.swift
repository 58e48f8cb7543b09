import Dispatch
import Foundation
import StateStore

/// What a commit survives: SQLite's `synchronous` setting, in the terms of what can go wrong.
public enum Durability: String, Sendable, CaseIterable {
    /// `synchronous = NORMAL` in WAL mode.
    case processCrash
    /// `synchronous = FULL`.
    case powerLoss
}

/// A SQLite database.
public final class Database: Sendable {
    /// How hard commits try to survive a crash (``Persistence/Durability``).
    public typealias Durability = Persistence.Durability

    /// The file's path, or `":memory:"`.
    public let path: String
    private let connection: Locked<Connection>
    /// What runs on the connection when ``close()`` is called, before it closes.
    private let closingSteps = Locked<[@Sendable (Connection) -> Void]>([])
    /// Where the clients' and the journal's work on this database runs, one call after another, on
    /// a thread of its own: never a caller's, nor one of the concurrency pool's few.
    let workQueue = DispatchQueue(label: "appcore.database.work")
    /// Marks ``workQueue``, so code can tell it runs there (``isOnWorkQueue``).
    private static let workQueueKey = DispatchSpecificKey<ObjectIdentifier>()
    /// Calls queued on ``workQueue`` and not done yet, and whether a checkpoint is queued: a write
    /// that could run on its caller's thread goes behind them, so calls keep their order.
    private let queued = Locked((calls: 0, checkpoint: false))
    /// The connection's ``Connection/lostFile``, readable while a call holds the connection.
    private let lost: Locked<DatabaseError?>
    /// Copies the write-ahead log into the file without holding ``connection``.
    let checkpointer: Checkpointer?

    /// Opens (creating if needed) the database at `path` and applies `migrations`.
    public init(
        path: String,
        migrations: [Migration] = [],
        durability: Durability = .processCrash,
        busyTimeout: Duration = .seconds(5),
        applicationID: Int32? = nil
    ) throws(DatabaseError) {
        self.path = path
        let connection = try Connection.open(path: path)
        do {
            // Everything that could refuse the file comes before anything that changes it.
            connection.setBusyTimeout(busyTimeout)
            try connection.checkOwnership(applicationID: applicationID, migrations: migrations)
            if path != ":memory:" { DatabaseFile.narrowToOwner(path) }
            try connection.configure(durability: durability, isFile: path != ":memory:", busyTimeout: busyTimeout)
            try connection.migrate(with: migrations, applicationID: applicationID)
        } catch {
            connection.close()
            throw error
        }
        checkpointer = path == ":memory:" ? nil : Checkpointer(path: path)
        lost = connection.lostFile
        self.connection = Locked(connection)
        workQueue.setSpecific(key: Self.workQueueKey, value: ObjectIdentifier(self))
    }

    /// Opens the existing database at `path` for reading only.
    public init(readingOnly path: String, migrations: [Migration], applicationID: Int32? = nil, busyTimeout: Duration = .seconds(5)) throws(DatabaseError) {
        self.path = path
        guard FileManager.default.fileExists(atPath: path) else {
            throw DatabaseError(.cannotOpen, operation: "open \(path) for reading", message: "there is no such file")
        }
        let connection = try Connection.open(path: path, readOnly: true)
        do throws(DatabaseError) {
            connection.setBusyTimeout(busyTimeout)
            try connection.checkOwnership(applicationID: applicationID, migrations: migrations)
            let latest = migrations.map(\.version).max() ?? 0
            let current = try connection.userVersion()
            guard current == latest else {
                throw DatabaseError(
                    .other, operation: "open \(path) for reading",
                    message:
                        "the database has schema version \(current) and needs migrating to \(latest), which reading only cannot do; open it once for writing")
            }
        } catch {
            connection.close()
            throw error
        }
        checkpointer = nil
        lost = connection.lostFile
        self.connection = Locked(connection)
        workQueue.setSpecific(key: Self.workQueueKey, value: ObjectIdentifier(self))
    }

    /// A private in-memory database with `migrations` applied: the same database for tests.
    public static func inMemory(migrations: [Migration] = []) throws(DatabaseError) -> Database {
        try Database(path: ":memory:", migrations: migrations)
    }

    deinit {
        checkpointer?.close()
        connection.withLock { $0.close() }
    }

    /// Closes the database.
    public func close() {
        let steps = closingSteps.withLock { steps in
            defer { steps.removeAll() }
            return steps
        }
        checkpointer?.close()
        connection.withLock { connection in
            guard !connection.isClosed else { return }
            for step in steps { step(connection) }
            connection.checkpointAndTruncateLog()
            connection.close()
        }
    }

    /// Adds a step that runs on the connection when ``close()`` is called, before it closes.
    public func beforeClosing(_ step: @escaping @Sendable (Connection) -> Void) {
        closingSteps.withLock { $0.append(step) }
    }

    /// Whether this code runs on ``workQueue`` (where waiting on the database is fine).
    var isOnWorkQueue: Bool {
        DispatchQueue.getSpecific(key: Self.workQueueKey) == ObjectIdentifier(self)
    }

    /// Set once a write found the file deleted or replaced at its path while open: every later write fails.
    public var lostFile: DatabaseError? { lost.withLock { $0 } }

    /// Whether ``close()`` was called.
    public var isClosed: Bool {
        connection.withLock { $0.isClosed }
    }

    /// Runs `body` with the connection, serialised with every other call.
    public func read<T>(_ body: (Connection) throws(DatabaseError) -> T) throws(DatabaseError) -> T {
        try read(body, orFail: { $0 })
    }

    /// Runs `body` in a transaction (an immediate one, so writers queue at its start).
    public func write<T>(_ body: (Connection) throws(DatabaseError) -> T) throws(DatabaseError) -> T {
        try write(body, orFail: { $0 })
    }

    /// ``read(_:)`` if no other call holds the connection now; `nil` at once if one does.
    func readIfAvailable<T>(_ body: (Connection) throws(DatabaseError) -> T) throws(DatabaseError) -> T? {
        try connection.withLockIfAvailable { (connection: inout Connection) throws(DatabaseError) -> T in
            guard !connection.isClosed else { throw closedError }
            return try body(connection)
        }
    }

    /// ``read(_:)`` for a body that fails with its caller's own error type.
    public func read<T, Failure: Error>(
        _ body: (Connection) throws(Failure) -> T, orFail failure: (DatabaseError) -> Failure
    ) throws(Failure) -> T {
        try connection.withLock { (connection: inout Connection) throws(Failure) -> T in
            guard !connection.isClosed else { throw failure(closedError) }
            return try body(connection)
        }
    }

    /// ``write(_:)`` for a body that fails with its caller's own error type.
    public func write<T, Failure: Error>(
        _ body: (Connection) throws(Failure) -> T, orFail failure: (DatabaseError) -> Failure
    ) throws(Failure) -> T {
        try connection.withLock { (connection: inout Connection) throws(Failure) -> T in
            guard !connection.isClosed else { throw failure(closedError) }
            defer {
                if connection.isCheckpointDue, checkpointer?.request(logGeneration: connection.logGeneration) != true { connection.checkpoint() }
            }
            return try connection.transaction(body, orFail: failure)
        }
    }

    /// ``write(_:orFail:)`` here and now, if that waits for nothing: no call is queued on the
    /// work queue, no other call holds the connection, no other connection holds the write lock.
    func writeWithoutWaiting<T, Failure: Error>(
        _ body: (Connection) throws(Failure) -> T, orFail failure: (DatabaseError) -> Failure
    ) throws(Failure) -> T? {
        guard queued.withLock({ $0.calls == 0 }) else { return nil }
        let outcome = try connection.withLockIfAvailable { (connection: inout Connection) throws(Failure) -> (T?, Int?) in
            guard !connection.isClosed else { throw failure(closedError) }
            let result = try connection.transactionIfFree(body, orFail: failure)
            // The log's generation when it is due to be copied.
            return (result, connection.isCheckpointDue ? connection.logGeneration : nil)
        }
        guard let (result, dueInGeneration) = outcome else { return nil }
        if let dueInGeneration { queueCheckpoint(logGeneration: dueInGeneration) }
        return result
    }

    /// `work`'s result, computed on the work queue without holding the caller's thread.
    func onWorkQueue<T: Sendable, Failure: Error>(_ work: @escaping @Sendable () throws(Failure) -> T) async throws(Failure) -> T {
        queued.withLock { $0.calls += 1 }
        return try await result(
            of: { () throws(Failure) -> T in
                defer { self.queued.withLock { $0.calls -= 1 } }
                return try work()
            }, on: workQueue)
    }

    /// Has the write-ahead log copied into the file, once however often asked before it runs.
    private func queueCheckpoint(logGeneration: Int) {
        if checkpointer?.request(logGeneration: logGeneration) == true { return }
        let isQueued = queued.withLock { queued -> Bool in
            defer { queued.checkpoint = true }
            return queued.checkpoint
        }
        guard !isQueued else { return }
        workQueue.async { [weak self] in
            guard let self else { return }
            queued.withLock { $0.checkpoint = false }
            connection.withLock { connection in
                if !connection.isClosed, connection.isCheckpointDue { connection.checkpoint() }
            }
        }
    }

    private var closedError: DatabaseError {
        DatabaseError(.other, operation: "use \(path)", message: "the database was closed")
    }

    /// The schema version stored in the file.
    public var userVersion: Int {
        get throws(DatabaseError) {
            try read { db throws(DatabaseError) in try db.userVersion() }
        }
    }
}
