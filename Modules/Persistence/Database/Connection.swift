import CSQLite
import Foundation
import StateStore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// The open connection inside a ``Database``: what `read` and `write` hand their body.
public final class Connection {
    private let handle: OpaquePointer
    private let path: String
    /// The busy timeout set last (``setBusyTimeout(_:)``), in milliseconds.
    private var busyMilliseconds: Int32 = 0
    private var statements: [String: OpaquePointer] = [:]
    private var transactionDepth = 0
    /// The journal stream this connection last found the latest, and ``externalChangeCount()``
    /// then: while that has not moved, no other connection wrote.
    var latestJournalStream: (stream: String, externalChanges: Int64)?
    private(set) var isClosed = false
    /// The pages the write-ahead log holds, as SQLite reports after each commit.
    private let logSize = LogSize()

    /// Whether the file was opened for reading only (``Database/init(readingOnly:migrations:)``).
    let isReadOnly: Bool
    /// Set once a write found the file deleted or replaced at its path: every later write
    /// fails with it, and nothing more goes to the file this connection still holds.
    let lostFile = Locked<DatabaseError?>(nil)

    private init(handle: OpaquePointer, path: String, isReadOnly: Bool) {
        self.handle = handle
        self.path = path
        self.isReadOnly = isReadOnly
    }

    // MARK: - Opening

    /// A connection to `path` (`":memory:"` for a private in-memory database): a file is checked
    /// first, and created owner-only when missing (see ``DatabaseFile``).
    static func open(path: String, readOnly: Bool = false) throws(DatabaseError) -> Connection {
        guard path != ":memory:" else { return try openHandle(path: path, readOnly: readOnly) }
        return try DatabaseFile.opening(path, forWriting: !readOnly) { () throws(DatabaseError) in
            try openHandle(path: path, readOnly: readOnly)
        }
    }

    private static func openHandle(path: String, readOnly: Bool) throws(DatabaseError) -> Connection {
        var handle: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let handle { sqlite3_close_v2(handle) }
            throw Self.error(code: code, operation: "open \(path)", message: message)
        }
        sqlite3_extended_result_codes(handle, 1)
        return Connection(handle: handle, path: path, isReadOnly: readOnly)
    }

    /// How long a statement waits for another connection's lock before failing with `busy`.
    func setBusyTimeout(_ busyTimeout: Duration) {
        let milliseconds = busyTimeout.components.seconds * 1000 + busyTimeout.components.attoseconds / 1_000_000_000_000_000
        busyMilliseconds = Int32(clamping: milliseconds)
        sqlite3_busy_timeout(handle, busyMilliseconds)
    }

    /// `body`'s result, its statements failing with `busy` at once instead of waiting.
    func withoutWaiting<T>(_ body: () throws(DatabaseError) -> T) throws(DatabaseError) -> T {
        sqlite3_busy_timeout(handle, 0)
        defer { sqlite3_busy_timeout(handle, busyMilliseconds) }
        return try body()
    }

    func configure(durability: Database.Durability, isFile: Bool, busyTimeout: Duration) throws(DatabaseError) {
        if isFile { try switchToWriteAheadLog(busyTimeout: busyTimeout) }
        try execute("PRAGMA synchronous = \(durability == .powerLoss ? "FULL" : "NORMAL")")
        if isFile {
            // SQLite's automatic checkpoint is replaced by one that runs where waiting is fine
            // (`isCheckpointDue`): it copies the log into the file with a disk flush, which a
            // commit made on a caller's thread must not do.
            // The C boundary: the context is this connection's `LogSize`, which lives as long as
            // the connection, and the hook runs only inside its commits.
            sqlite3_wal_hook(
                handle,
                { context, _, _, pages in
                    if let context { Unmanaged<LogSize>.fromOpaque(context).takeUnretainedValue().committed(pages) }
                    return SQLITE_OK
                }, Unmanaged.passUnretained(logSize).toOpaque())
        }
        try execute("PRAGMA foreign_keys = ON")
        // Freed space is overwritten with zeros: deleted text does not linger in the file.
        _ = try query("PRAGMA secure_delete = ON") { $0.int(0) }
    }

    /// Pages of write-ahead log after which it is copied into the file: every ~16 MB of
    /// changes rather than SQLite's 4 MB, a quarter of the disk flushes for a busy writer.
    static let checkpointPages: Int32 = 4_000

    /// The log's size, in pages, after which it is copied into the file (smaller in tests).
    var checkpointPages = Connection.checkpointPages

    /// The pages the write-ahead log held after the last commit, 0 after a checkpoint.
    var logPages: Int32 { logSize.pages }

    /// How many times this connection's commits found the write-ahead log started over.
    var logGeneration: Int { logSize.generation }

    /// Whether the write-ahead log has grown enough to be copied into the file (``checkpoint()``).
    var isCheckpointDue: Bool { logSize.pages >= checkpointPages }

    /// Copies what it can of the write-ahead log into the file, waiting for no connection.
    func checkpoint() {
        guard !isClosed, lostFile.withLock({ $0 == nil }) else { return }
        sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
        logSize.pages = 0
    }

    /// Copies the write-ahead log into the file and empties it, best effort, on closing.
    func checkpointAndTruncateLog() {
        guard !isClosed, lostFile.withLock({ $0 == nil }) else { return }
        sqlite3_busy_timeout(handle, 0)
        defer { sqlite3_busy_timeout(handle, busyMilliseconds) }
        sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_TRUNCATE, nil, nil)
    }

    /// Puts the file in write-ahead-log mode, waiting up to `busyTimeout` for others.
    private func switchToWriteAheadLog(busyTimeout: Duration) throws(DatabaseError) {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: busyTimeout)
        var pauseMilliseconds = 1
        while true {
            let mode: String
            do {
                mode = try query("PRAGMA journal_mode = WAL") { row in row.text(0) }.first ?? ""
            } catch  where error.kind == .busy && clock.now.advanced(by: .milliseconds(pauseMilliseconds)) < deadline {
                usleep(useconds_t(pauseMilliseconds * 1000))
                pauseMilliseconds = min(pauseMilliseconds * 2, 50)
                continue
            }
            guard mode.lowercased() == "wal" else {
                throw DatabaseError(.other, operation: "switch \(path) to WAL", message: "journal mode is \(mode)")
            }
            return
        }
    }

    func close() {
        guard !isClosed else { return }
        isClosed = true
        for statement in statements.values { sqlite3_finalize(statement) }
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Binds `text` with its length in bytes, so a NUL inside it is kept.
    private static func bind(_ text: String, to statement: OpaquePointer, at index: Int32) -> Int32 {
        // An empty buffer may have no address, and a null pointer would bind NULL.
        guard !text.isEmpty else { return sqlite3_bind_text(statement, index, "", 0, sqliteTransient) }
        var text = text
        return text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { characters in
                sqlite3_bind_text(statement, index, characters.baseAddress, Int32(characters.count), sqliteTransient)
            }
        }
    }

    // MARK: - Statements

    /// Runs a statement that returns no rows, with `bindings` for its `?` parameters.
    public func execute(_ sql: String, _ bindings: [SQLValue] = []) throws(DatabaseError) {
        let statement = try prepared(sql)
        defer { sqlite3_reset(statement) }
        try bind(bindings, to: statement, sql: sql)
        var code = sqlite3_step(statement)
        while code == SQLITE_ROW { code = sqlite3_step(statement) }
        guard code == SQLITE_DONE else { throw failure(code, sql) }
    }

    /// Runs a query and maps each row with `transform`.
    public func query<T>(
        _ sql: String,
        _ bindings: [SQLValue] = [],
        _ transform: (Row) throws(DatabaseError) -> T
    ) throws(DatabaseError) -> [T] {
        let statement = try prepared(sql)
        defer { sqlite3_reset(statement) }
        try bind(bindings, to: statement, sql: sql)
        var results: [T] = []
        while true {
            let code = sqlite3_step(statement)
            if code == SQLITE_DONE { return results }
            guard code == SQLITE_ROW else { throw failure(code, sql) }
            results.append(try transform(Row(statement: statement)))
        }
    }

    /// How many rows the last statement changed.
    public var changes: Int { Int(sqlite3_changes(handle)) }

    var totalChanges: Int { Int(sqlite3_total_changes(handle)) }

    /// Runs several statements without parameters (migrations).
    public func executeScript(_ sql: String) throws(DatabaseError) {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        guard code == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(message)
            throw Self.error(code: code, operation: "run script on \(path)", message: text)
        }
    }

    // MARK: - Transactions

    /// Runs `body` in a transaction.
    public func transaction<T>(_ body: (Connection) throws(DatabaseError) -> T) throws(DatabaseError) -> T {
        try transaction(body, orFail: { $0 })
    }

    /// ``transaction(_:)`` for a body that fails with its caller's own error type.
    public func transaction<T, Failure: Error>(
        _ body: (Connection) throws(Failure) -> T, orFail failure: (DatabaseError) -> Failure
    ) throws(Failure) -> T {
        let savepoint = transactionDepth == 0 ? nil : "s\(transactionDepth)"
        do {
            try execute(savepoint.map { "SAVEPOINT \($0)" } ?? "BEGIN IMMEDIATE")
            if savepoint == nil { try checkFileInPlace() }
        } catch {
            throw failure(error)
        }
        return try inTransaction(body, savepoint: savepoint, orFail: failure)
    }

    /// ``transaction(_:orFail:)`` for reads: all its reads see the database as at the first.
    func readTransaction<T, Failure: Error>(
        _ body: (Connection) throws(Failure) -> T, orFail failure: (DatabaseError) -> Failure
    ) throws(Failure) -> T {
        guard transactionDepth == 0 else { return try body(self) }
        do {
            try execute("BEGIN DEFERRED")
        } catch {
            throw failure(error)
        }
        return try inTransaction(body, savepoint: nil, orFail: failure)
    }

    /// ``transaction(_:orFail:)`` begun only if no other connection holds the write lock (it is
    /// not waited for); `nil` when one does, and nothing was done.
    func transactionIfFree<T, Failure: Error>(
        _ body: (Connection) throws(Failure) -> T, orFail failure: (DatabaseError) -> Failure
    ) throws(Failure) -> T? {
        guard transactionDepth == 0 else { return try transaction(body, orFail: failure) }
        do {
            try withoutWaiting { () throws(DatabaseError) in try execute("BEGIN IMMEDIATE") }
        } catch  where error.kind == .busy {
            return nil
        } catch {
            throw failure(error)
        }
        do {
            try checkFileInPlace()
        } catch {
            throw failure(error)
        }
        return try inTransaction(body, savepoint: nil, orFail: failure)
    }

    /// Throws, with the transaction rolled back, when the file at the path is no longer the one
    /// opened: what it wrote would be acknowledged and lost.
    private func checkFileInPlace() throws(DatabaseError) {
        if let lost = lostFile.withLock({ $0 }) {
            rollBack(to: nil)
            throw lost
        }
        var moved: Int32 = 0
        guard sqlite3_file_control(handle, "main", SQLITE_FCNTL_HAS_MOVED, &moved) == SQLITE_OK, moved != 0 else { return }
        let lost = DatabaseError(
            .moved, operation: "write \(path)",
            message: "the database file was deleted or replaced while this program had it open, so nothing more is written")
        lostFile.withLock { $0 = lost }
        rollBack(to: nil)
        // The log beside the path is still this file's: its pages go into the file they belong
        // to (wherever it was moved), and the log is emptied, so a file put at the path never
        // reads them as its own. Then nothing more is written, not even on closing, when SQLite
        // would otherwise remove the log and index by their names.
        sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_TRUNCATE, nil, nil)
        _ = appcore_sqlite3_no_checkpoint_on_close(handle)
        throw lost
    }

    /// Runs `body` in the transaction just begun, then commits it, or rolls it back on failure.
    private func inTransaction<T, Failure: Error>(
        _ body: (Connection) throws(Failure) -> T, savepoint: String?, orFail failure: (DatabaseError) -> Failure
    ) throws(Failure) -> T {
        transactionDepth += 1
        defer { transactionDepth -= 1 }
        let result: T
        do {
            result = try body(self)
        } catch {
            rollBack(to: savepoint)
            throw error
        }
        do {
            try execute(savepoint.map { "RELEASE \($0)" } ?? "COMMIT")
        } catch {
            rollBack(to: savepoint)
            throw failure(error)
        }
        return result
    }

    private func rollBack(to savepoint: String?) {
        // What it may have marked is undone with it.
        latestJournalStream = nil
        if let savepoint {
            try? execute("ROLLBACK TO \(savepoint)")
            try? execute("RELEASE \(savepoint)")
        } else {
            try? execute("ROLLBACK")
        }
    }

    /// Whether this SQLite was built with `option` (`"ENABLE_FTS5"`).
    public func hasCompileOption(_ option: String) -> Bool {
        sqlite3_compileoption_used(option) == 1
    }

    /// Whether a table (or virtual table) named `name` exists.
    public func tableExists(_ name: String) throws(DatabaseError) -> Bool {
        try !query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(name)]) { $0.int(0) }.isEmpty
    }

    /// A number that moves whenever another connection (of this process or another) commits
    /// a change to the file: `PRAGMA data_version`.
    public func externalChangeCount() throws(DatabaseError) -> Int64 {
        try query("PRAGMA data_version") { $0.int(0) }.first.map(Int64.init) ?? 0
    }

    // MARK: - Schema version

    func userVersion() throws(DatabaseError) -> Int {
        try query("PRAGMA user_version") { $0.int(0) }.first ?? 0
    }

    /// Checks, before anything is written, that the file is a database this build may use: not
    /// damaged, not another program's (when `applicationID` is given), not of a newer schema.
    func checkOwnership(applicationID: Int32?, migrations: [Migration]) throws(DatabaseError) {
        let operation = "open \(path)"
        // Reading the schema proves the file is a database (a damaged one fails with
        // SQLITE_CORRUPT, here or later, and is called damaged).
        let tables = try query("SELECT count(*) FROM sqlite_master") { $0.int(0) }.first ?? 0
        let current = try userVersion()
        if let applicationID {
            let stamped = try query("PRAGMA application_id") { $0.int(0) }.first ?? 0
            // Ours: stamped with our id, or written before stamping (a schema version, no id).
            let isOurs = stamped == Int(applicationID) || (stamped == 0 && current > 0) || tables == 0
            guard isOurs else {
                throw DatabaseError(
                    .notADatabase, operation: operation,
                    message: stamped == 0
                        ? "it is a SQLite database of another program (\(tables) schema objects, no AppCore schema)"
                        : "it is a SQLite database of another program (application id \(stamped))")
            }
        }
        let latest = migrations.map(\.version).max() ?? 0
        guard current <= latest else {
            throw DatabaseError(
                .newerSchema, operation: operation,
                message:
                    "the database has schema version \(current), but this build knows up to \(latest); it was written by a newer AppCore and was left untouched"
            )
        }
    }

    func migrate(with migrations: [Migration], applicationID: Int32?) throws(DatabaseError) {
        let current = try userVersion()
        for migration in migrations.sorted(by: { $0.version < $1.version }) where migration.version > current {
            do {
                try transaction { (db: Connection) throws(DatabaseError) in
                    // Another process opening the file at the same moment may have applied it
                    // while this one waited for the write lock.
                    guard try db.userVersion() < migration.version else { return }
                    try migration.apply(db)
                    try db.execute("PRAGMA user_version = \(migration.version)")
                }
            } catch {
                throw DatabaseError(
                    error.kind, operation: "migrate \(path) to version \(migration.version) (\(migration.name))",
                    code: error.code, message: error.message)
            }
        }
        if let applicationID, try query("PRAGMA application_id", [], { $0.int(0) }).first != Int(applicationID) {
            try execute("PRAGMA application_id = \(applicationID)")
        }
    }

    // MARK: - Internals

    private func prepared(_ sql: String) throws(DatabaseError) -> OpaquePointer {
        if let statement = statements[sql] { return statement }
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else { throw failure(code, sql) }
        statements[sql] = statement
        return statement
    }

    private func bind(_ values: [SQLValue], to statement: OpaquePointer, sql: String) throws(DatabaseError) {
        sqlite3_clear_bindings(statement)
        let expected = Int(sqlite3_bind_parameter_count(statement))
        guard values.count == expected else {
            throw DatabaseError(
                .other, operation: "run \(Self.summary(sql))",
                message: "\(values.count) values bound to \(expected) parameters")
        }
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32 =
                switch value {
                case .null: sqlite3_bind_null(statement, index)
                case .integer(let number): sqlite3_bind_int64(statement, index, number)
                case .real(let number): sqlite3_bind_double(statement, index, number)
                case .text(let text): Self.bind(text, to: statement, at: index)
                case .blob(let bytes):
                    // The C boundary: SQLite copies the bytes (SQLITE_TRANSIENT) before this returns.
                    bytes.withUnsafeBytes { buffer in
                        sqlite3_bind_blob(statement, index, buffer.baseAddress, Int32(buffer.count), sqliteTransient)
                    }
                }
            guard code == SQLITE_OK else { throw failure(code, sql) }
        }
    }

    private func failure(_ code: Int32, _ sql: String) -> DatabaseError {
        // Named by what it did to the file, never by its SQL: the message may reach a screen.
        let verb = sql.drop { $0.isWhitespace }.prefix { !$0.isWhitespace }.uppercased()
        // A pragma that sets a value (`PRAGMA application_id = …`) writes.
        let reads = ["SELECT", "WITH"].contains(verb) || (verb == "PRAGMA" && !sql.contains("="))
        let operation = "\(reads ? "read" : "write") \(path)"
        if isReadOnly, code & 0xFF == SQLITE_READONLY {
            return DatabaseError(.openedReadOnly, operation: operation, code: code, message: "the database was opened for reading only")
        }
        let message = String(cString: sqlite3_errmsg(handle))
        // A read the disk failed can look like damage; only a database whose check fails is damaged.
        if code & 0xFF == SQLITE_CORRUPT, passesQuickCheck() {
            return DatabaseError(.io, operation: operation, code: code, message: "a read failed for a moment (the database itself checks out)")
        }
        return Self.error(code: code, operation: operation, message: message)
    }

    /// Whether SQLite's quick check finds the database whole (it reads every page: errors only).
    private func passesQuickCheck() -> Bool {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, "PRAGMA quick_check(1)", -1, &statement, nil) == SQLITE_OK, let statement else { return false }
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW, let text = sqlite3_column_text(statement, 0) else { return false }
        return String(cString: text) == "ok"
    }

    static func error(code: Int32, operation: String, message: String) -> DatabaseError {
        let kind: DatabaseError.Kind =
            switch code & 0xFF {
            case SQLITE_CANTOPEN: .cannotOpen
            case SQLITE_NOTADB: .notADatabase
            case SQLITE_CORRUPT: .damaged
            case SQLITE_IOERR, SQLITE_PROTOCOL: .io
            case SQLITE_READONLY: .readOnly
            case SQLITE_FULL: .full
            case SQLITE_BUSY, SQLITE_LOCKED: .busy
            case SQLITE_CONSTRAINT: .constraint
            default: .other
            }
        return DatabaseError(kind, operation: operation, code: code, message: message)
    }

    /// The statement's first words, naming it in errors without values (they are all bound).
    private static func summary(_ sql: String) -> String {
        let words = sql.split(whereSeparator: \.isWhitespace).prefix(4).joined(separator: " ")
        return "“\(words)…”"
    }
}

/// `SQLITE_TRANSIENT`: SQLite copies the bound bytes.
private let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// One row of a query's result, read by column index.
public struct Row {
    fileprivate let statement: OpaquePointer

    /// Whether the column is NULL.
    public func isNull(_ column: Int32) -> Bool { sqlite3_column_type(statement, column) == SQLITE_NULL }
    /// The column as an integer.
    public func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(statement, column) }
    /// The column as an `Int`.
    public func int(_ column: Int32) -> Int { Int(sqlite3_column_int64(statement, column)) }
    /// The column as a double.
    public func double(_ column: Int32) -> Double { sqlite3_column_double(statement, column) }
    /// The column as text (empty for NULL).
    public func text(_ column: Int32) -> String {
        guard let bytes = sqlite3_column_text(statement, column) else { return "" }
        let count = Int(sqlite3_column_bytes(statement, column))
        // The C boundary: the text and its count stay valid until the statement steps again.
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }
    /// The column as bytes (empty for NULL).
    public func blob(_ column: Int32) -> [UInt8] {
        // The C boundary: the pointer, then its count (SQLite's safe order), valid until the
        // statement steps again.
        guard let bytes = sqlite3_column_blob(statement, column) else { return [] }
        let count = Int(sqlite3_column_bytes(statement, column))
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
    }
}

/// One step of a schema.
public struct Migration: Sendable {
    /// The schema version this step brings the file to.
    public let version: Int
    /// What it does, for error messages.
    public let name: String
    let apply: @Sendable (Connection) throws(DatabaseError) -> Void

    /// A step that runs `sql` (several statements allowed).
    public init(version: Int, name: String, sql: String) {
        self.init(version: version, name: name) { db throws(DatabaseError) in try db.executeScript(sql) }
    }

    /// A step that does what `apply` does, for schema changes that depend on the SQLite at hand.
    public init(version: Int, name: String, apply: @escaping @Sendable (Connection) throws(DatabaseError) -> Void) {
        self.version = version
        self.name = name
        self.apply = apply
    }
}

/// The pages a connection's write-ahead log holds: set by SQLite's hook inside a commit, read
/// between calls, both under the lock of the ``Database`` that owns the connection.
private final class LogSize {
    var pages: Int32 = 0
    /// How many times the log started over (a commit left fewer pages in it than the one before).
    var generation = 0

    func committed(_ pages: Int32) {
        if pages < self.pages { generation += 1 }
        self.pages = pages
    }
}
