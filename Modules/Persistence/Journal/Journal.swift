import Dispatch
import Foundation
import Models
import StateStore

/// An append-only record of the actions a store reduced, with periodic snapshots of its state,
/// in the app's database: what lets a session resume after a crash.
public final class Journal<State: Codable & Sendable, Action: Codable & Sendable>: Sendable {
    /// One journaled action and its position.
    public struct Entry: Sendable {
        /// The action's position in the journal, from 1.
        public let sequence: Int
        /// The action, as the reducer saw it (secrets redacted).
        public let action: Action
    }

    /// The database the journal lives in.
    public let database: Database
    /// The name separating this journal from others in the same database.
    public let stream: String
    /// How often buffered actions are written.
    public let flushInterval: Duration

    /// What the journal tells its owner about trouble, as it happens.
    public enum Event: Sendable, Equatable {
        /// Writing failed (a full disk, a lock held too long, a read-only file).
        case writeFailed(DatabaseError, unwritten: Int)
        /// Writing works again after ``writeFailed(_:unwritten:)``: every waiting action is stored.
        case writeRecovered
        /// Reading met a damaged batch of actions or snapshot and skipped it.
        case damaged(String)
    }

    private struct Buffer {
        var pending: [Action] = []
        var nextSequence = 1
        var isClosed = false
        /// Whether a background flush is scheduled (on ``committing``).
        var flushScheduled = false
        /// Whether the last write failed (an episode reported, and not over yet).
        var isFailing = false
        var bytesWritten = 0
    }

    private let report: @Sendable (Event) -> Void
    /// Where the notes documents name by reference are read back from: the database's table.
    private let storedNotes: StoredNotes
    /// The longest pause between retries of a failing write, so space that returns is used soon.
    private static var longestRetryPause: Duration { .seconds(1) }

    private let buffer: Locked<Buffer>
    /// Serialises flushes, so batches land in sequence order.
    private let flushing = NSLock()
    /// Where ``commit(timeout:)`` writes when it cannot at once: the database's work queue, never
    /// the caller's thread nor the concurrency pool's.
    private var committing: DispatchQueue { database.workQueue }
    private let waiters: CommitWaiters
    /// Where periodic snapshots are encoded and written, one after another: off the thread that
    /// reduces, which a big state's encoding (tens of milliseconds for 10,000 notes) would stall.
    private let snapshotting = DispatchQueue(label: "appcore.journal.snapshots", qos: .utility)

    /// Opens the journal `stream` in `database`, continuing after its last stored action.
    public init(
        database: Database,
        stream: String = "app",
        flushInterval: Duration = .milliseconds(20),
        report: @escaping @Sendable (Event) -> Void = { _ in }
    ) throws(DatabaseError) {
        self.database = database
        self.stream = stream
        self.flushInterval = flushInterval
        self.report = report
        storedNotes = AppSchema.storedNotes(in: database)
        waiters = CommitWaiters(path: database.path)
        let last = try database.read { db throws(DatabaseError) in
            try db.query("SELECT coalesce(max(first_sequence + count - 1), 0) FROM journal WHERE stream = ?", [.text(stream)]) { $0.int(0) }.first ?? 0
        }
        let snapshot = try database.read { db throws(DatabaseError) in
            try db.query("SELECT coalesce(max(sequence), 0) FROM snapshots WHERE stream = ?", [.text(stream)]) { $0.int(0) }.first ?? 0
        }
        buffer = Locked(Buffer(nextSequence: max(last, snapshot) + 1))
    }

    deinit {
        buffer.withLock { $0.isClosed = true }
    }

    // MARK: - Writing

    /// Adds `action` to the journal; it is written at the next flush.
    public func append(_ action: Action) {
        _ = appendTellingBytesWritten(action)
    }

    /// ``append(_:)``, and the bytes of actions this journal has written so far.
    private func appendTellingBytesWritten(_ action: Action) -> Int {
        let (startFlusher, written) = buffer.withLock { buffer -> (Bool, Int) in
            guard !buffer.isClosed else { return (false, buffer.bytesWritten) }
            buffer.pending.append(action)
            return (!buffer.flushScheduled, buffer.bytesWritten)
        }
        if startFlusher { scheduleFlush() }
        return written
    }

    /// How many appended actions are not written yet (waiting for the next flush, or for
    /// writing to work again).
    public var unwrittenCount: Int {
        buffer.withLock { $0.pending.count }
    }

    /// Writes every buffered action now, in one transaction; returns the last durable sequence.
    @discardableResult
    public func flush() throws(DatabaseError) -> Int {
        flushing.lock()
        defer { flushing.unlock() }
        // Waiting, the batch is always written (or the write fails).
        return try flushBuffered(waiting: true) ?? buffer.withLock { $0.nextSequence - 1 }
    }

    /// ``flush()`` on this thread if that waits for nothing; `nil`, having written nothing, when it would.
    private func flushWithoutWaiting() throws(DatabaseError) -> Int? {
        // Written already (actions leave the buffer only once committed): nothing to wait for.
        if let written = buffer.withLock({ $0.pending.isEmpty ? $0.nextSequence - 1 : nil }) { return written }
        guard flushing.try() else { return nil }
        defer { flushing.unlock() }
        return try flushBuffered(waiting: false)
    }

    /// Writes every buffered action in one transaction; `nil` when it would wait and may not.
    private func flushBuffered(waiting: Bool) throws(DatabaseError) -> Int? {
        // Actions leave the buffer only once written, so a failed flush loses nothing.
        let (batch, first) = buffer.withLock { ($0.pending, $0.nextSequence) }
        guard !batch.isEmpty else { return first - 1 }
        let chunks = try Self.encode(batch)
        let wrote = try writing(waiting: waiting) { db throws(DatabaseError) in
            var sequence = first
            for (count, data) in chunks {
                try db.execute(
                    "INSERT INTO journal (stream, first_sequence, count, actions) VALUES (?, ?, ?, ?)",
                    [.text(stream), .int(sequence), .int(count), .blob(data)])
                sequence += count
            }
            try markActive(in: db)
        }
        guard wrote else { return nil }
        buffer.withLock { buffer in
            buffer.pending.removeFirst(batch.count)
            buffer.nextSequence += batch.count
            buffer.bytesWritten += chunks.reduce(0) { $0 + $1.data.count }
        }
        return first + batch.count - 1
    }

    /// Makes every action appended so far durable now, without blocking the caller.
    @discardableResult
    nonisolated(nonsending) public func commit(timeout: Duration = .seconds(10)) async throws(DatabaseError) -> Int {
        if let written = try flushWithoutWaiting() { return written }
        let result: Result<Int, DatabaseError> = await withCheckedContinuation { continuation in
            let waiter = waiters.add(continuation, deadline: ContinuousClock.now + timeout, timeout: timeout)
            committing.async { [self] in waiters.answer(waiter, with: Result { () throws(DatabaseError) in try flush() }) }
        }
        return try result.get()
    }

    /// Makes every action appended so far durable, then calls `done` with the last durable sequence
    /// or why not: at once, on this thread when that waits for nothing, else on the work queue.
    package func commit(then done: @escaping @Sendable (Result<Int, DatabaseError>) -> Void) {
        if database.isOnWorkQueue { return done(Result { () throws(DatabaseError) in try flush() }) }
        do {
            if let written = try flushWithoutWaiting() { return done(.success(written)) }
        } catch {
            return done(.failure(error))
        }
        committing.async { [self] in done(Result { () throws(DatabaseError) in try flush() }) }
    }

    /// Runs `body` in a write transaction, reporting the start and the end of an episode of
    /// failures; without `waiting`, only if that waits for nothing (`false`: nothing was done).
    @discardableResult
    private func writing(waiting: Bool = true, _ body: (Connection) throws(DatabaseError) -> Void) throws(DatabaseError) -> Bool {
        do {
            if waiting {
                try database.write(body)
            } else {
                guard try database.writeWithoutWaiting(body, orFail: { $0 }) != nil else { return false }
            }
        } catch {
            let isNew = buffer.withLock { buffer in
                defer { buffer.isFailing = true }
                return !buffer.isFailing
            }
            if isNew { report(.writeFailed(error, unwritten: unwrittenCount)) }
            throw error
        }
        let recovered = buffer.withLock { buffer in
            defer { buffer.isFailing = false }
            return buffer.isFailing
        }
        if recovered { report(.writeRecovered) }
        return true
    }

    /// Flushes what is buffered and stops accepting actions.
    public func close(finalState: State? = nil) throws(DatabaseError) {
        waitForSnapshots()
        buffer.withLock { buffer in
            buffer.isClosed = true
        }
        try flush()
        if let finalState {
            try snapshot(finalState)
            try compact()
        }
        try database.write { db throws(DatabaseError) in
            try db.execute("UPDATE journal_streams SET closed = 1 WHERE stream = ?", [.text(stream)])
        }
    }

    // MARK: - Streams

    /// A new stream name for one process's journal: `app/<date>-<random>`, never used before.
    public static func newStream(prefix: String = "app") -> String {
        "\(prefix)/\(Int(Date().timeIntervalSince1970))-\(UUID().uuidString.lowercased().prefix(8))"
    }

    /// The stream written most recently (by any process), or `nil` when the journal is empty.
    public static func latestStream(in database: Database) throws(DatabaseError) -> String? {
        try database.read { db throws(DatabaseError) in
            try db.query("SELECT stream FROM journal_streams ORDER BY last_active DESC, rowid DESC LIMIT 1") { $0.text(0) }.first
        }
    }

    /// Deletes every stream whose process is done with it, except `kept`.
    public static func removeClosedStreams(except kept: Set<String>, in database: Database) throws(DatabaseError) {
        try database.write { db throws(DatabaseError) in
            let streams = try db.query("SELECT stream, closed, owner_pid, owner_started FROM journal_streams") { row in
                (
                    stream: row.text(0), closed: row.int(1) != 0,
                    owner: row.isNull(2) ? nil : StreamOwner(pid: Int32(truncatingIfNeeded: row.int(2)), started: row.int(3))
                )
            }
            let finished = streams.filter { $0.closed || !($0.owner?.isRunning ?? false) }.map(\.stream)
            for stream in finished where !kept.contains(stream) {
                try db.execute("DELETE FROM journal WHERE stream = ?", [.text(stream)])
                try db.execute("DELETE FROM snapshots WHERE stream = ?", [.text(stream)])
                try db.execute("DELETE FROM journal_streams WHERE stream = ?", [.text(stream)])
            }
        }
    }

    /// The state the most recently written stream leaves `initial` in, and how many actions it replayed.
    public static func restoreLatest<R: Reducer>(
        in database: Database, from initial: State, using reducer: R, report: @escaping @Sendable (Event) -> Void = { _ in }
    ) throws(DatabaseError) -> (state: State, replayed: Int) where R.State == State, R.Action == Action {
        guard let latest = try latestStream(in: database) else { return (initial, 0) }
        return try Journal(database: database, stream: latest, report: report).restore(from: initial, using: reducer)
    }

    /// A new stream of this process's own, starting from `state`, with every stream whose process
    /// is done removed: each process records apart, and the journal stays bounded.
    public static func startOwnStream(
        in database: Database, from state: State, report: @escaping @Sendable (Event) -> Void = { _ in }
    ) throws(DatabaseError) -> Journal {
        let own = try Journal(database: database, stream: newStream(), report: report)
        try own.snapshot(state)
        try removeClosedStreams(except: [own.stream], in: database)
        return own
    }

    /// Records that this stream was just written, by this process: it becomes the latest.
    private func markActive(in db: Connection) throws(DatabaseError) {
        let externalChanges = try db.externalChangeCount()
        if let known = db.latestJournalStream, known.stream == stream, known.externalChanges == externalChanges { return }
        db.latestJournalStream = nil
        let latest = try db.query("SELECT stream FROM journal_streams ORDER BY last_active DESC, rowid DESC LIMIT 1") { $0.text(0) }.first
        if latest != stream {
            let owner = StreamOwner.current
            try db.execute(
                """
                INSERT INTO journal_streams (stream, last_active, owner_pid, owner_started)
                    VALUES (?, (SELECT coalesce(max(last_active), 0) + 1 FROM journal_streams), ?, ?)
                ON CONFLICT (stream) DO UPDATE SET last_active = excluded.last_active
                """, [.text(stream), .int(Int(owner.pid)), .int(owner.started)])
        }
        // Forgotten again if the transaction rolls back (`Connection.rollBack`).
        db.latestJournalStream = (stream, externalChanges)
    }

    /// Stores `state` as the state after every action appended so far (flushing them first), so a
    /// restore starts from it instead of replaying from the beginning.
    public func snapshot(_ state: State) throws(DatabaseError) {
        try snapshot(state, at: try flush())
    }

    /// Actions after a snapshot of n bytes before the next, at the least n / this: a snapshot's
    /// cost per action stays the same however big the state grows.
    static var snapshotBytesPerAction: Int { 64 }

    /// The bytes of journaled actions after which a snapshot is due whatever their number.
    static func journalBytesDue(snapshotEvery: Int, snapshotBytes: Int) -> Int {
        let (floor, overflow) = snapshotEvery.multipliedReportingOverflow(by: 4 * snapshotBytesPerAction)
        return max(overflow ? .max : floor, 4 * snapshotBytes)
    }

    /// Stores `state` as the state after action `sequence`; returns the snapshot's size in bytes.
    @discardableResult
    private func snapshot(_ state: State, at sequence: Int) throws(DatabaseError) -> Int {
        let data: [UInt8]
        do {
            data = try CompactCoding.encode(state, userInfo: Self.writing)
        } catch {
            throw DatabaseError(.other, operation: "encode a snapshot", message: "\(error)")
        }
        try writing { db throws(DatabaseError) in
            try db.execute(
                "INSERT OR REPLACE INTO snapshots (stream, sequence, state) VALUES (?, ?, ?)",
                [.text(stream), .int(sequence), .blob(data)])
            try markActive(in: db)
        }
        return data.count
    }

    /// Appends every action `store` reduces from now on, and snapshots its state as it grows
    /// (compacting the stream to it unless `compacts` is false) and after every action
    /// `carriesSecret` picks.
    public func record(
        _ store: RootStore<State, Action>,
        snapshotEvery: Int = 10_000,
        compacts: Bool = true,
        carriesSecret: @escaping @Sendable (Action) -> Bool = { _ in false }
    ) -> StoreSubscription {
        // Actions (and their bytes) since the last periodic snapshot, and how many make the next
        // one due: counted from the stored snapshot, so a process that starts on a big state, or
        // after actions another one journaled, keeps the same distance between snapshots.
        let latest = try? database.read { db throws(DatabaseError) in
            try db.query(
                """
                SELECT sequence, length(state),
                    (SELECT coalesce(sum(length(actions)), 0) FROM journal WHERE stream = ?1 AND first_sequence > snapshots.sequence)
                FROM snapshots WHERE stream = ?1 ORDER BY sequence DESC LIMIT 1
                """, [.text(stream)]
            ) { (sequence: $0.int(0), bytes: $0.int(1), journalBytes: $0.int(2)) }.first
        }
        let (journaled, written) = buffer.withLock { ($0.nextSequence - 1, $0.bytesWritten) }
        let progress = Locked(
            (
                count: latest.map { max(0, journaled - $0.sequence) } ?? 0,
                due: max(snapshotEvery, (latest?.bytes ?? 0) / Self.snapshotBytesPerAction),
                writtenAtSnapshot: written - (latest?.journalBytes ?? 0),
                bytesDue: Self.journalBytesDue(snapshotEvery: snapshotEvery, snapshotBytes: latest?.bytes ?? 0)
            ))
        let snapshotWritten = { @Sendable (bytes: Int) in
            progress.withLock {
                $0.due = max(snapshotEvery, bytes / Self.snapshotBytesPerAction)
                $0.bytesDue = Self.journalBytesDue(snapshotEvery: snapshotEvery, snapshotBytes: bytes)
            }
        }
        // The actions flushed by the time a snapshot is taken are its own; what is written after
        // them counts toward the next.
        let snapshotTaken = { @Sendable [buffer] in
            let written = buffer.withLock { $0.bytesWritten }
            progress.withLock { $0.writtenAtSnapshot = written }
        }
        return store.observeActions { [self] action, state in
            let written = appendTellingBytesWritten(action)
            let due = progress.withLock { progress -> Bool in
                progress.count += 1
                guard progress.count >= progress.due || written - progress.writtenAtSnapshot >= progress.bytesDue else { return false }
                progress.count = 0
                progress.writtenAtSnapshot = written
                return true
            }
            if carriesSecret(action) {
                // At once: the action is journaled redacted, so only this snapshot keeps its state.
                if let sequence = try? flush(), let bytes = try? snapshot(state, at: sequence), due {
                    snapshotTaken()
                    snapshotWritten(bytes)
                }
                if due, compacts { try? compact() }
            } else if due {
                // The actions so far are written here (so a batch ends where the snapshot
                // starts); the state after them is encoded and written off this thread. Each
                // periodic snapshot makes the actions before it unnecessary: the stream stays
                // within `snapshotEvery` actions and one snapshot.
                guard let sequence = try? flush() else { return }
                snapshotTaken()
                snapshotting.async { [self] in
                    if let bytes = try? snapshot(state, at: sequence) { snapshotWritten(bytes) }
                    if compacts { try? compact() }
                }
            }
        }
    }

    /// Waits until the snapshots ``record(_:snapshotEvery:compacts:carriesSecret:)`` started
    /// are written.
    public func waitForSnapshots() {
        snapshotting.sync {}
    }

    // MARK: - Reading

    /// The state after the last durable action.
    public func restore<R: Reducer>(from initial: State, using reducer: R) throws(DatabaseError) -> (state: State, replayed: Int)
    where R.State == State, R.Action == Action {
        let sequences = try database.read { db throws(DatabaseError) in
            try db.query("SELECT sequence FROM snapshots WHERE stream = ? ORDER BY sequence DESC", [.text(stream)]) { $0.int(0) }
        }
        var state = initial
        var after = 0
        for sequence in sequences {
            let bytes = try database.read { db throws(DatabaseError) in
                try db.query("SELECT state FROM snapshots WHERE stream = ? AND sequence = ?", [.text(stream), .int(sequence)]) { $0.blob(0) }.first
            }
            do {
                state = try Self.decodeDocument(State.self, from: bytes ?? [], reading: storedNotes)
                after = sequence
                break
            } catch {
                let fallback = sequences.last == sequence ? "a fresh app" : "the snapshot before it"
                report(
                    .damaged(
                        "the saved state after action \(sequence) could not be read (\(Self.brief(error))); starting from \(fallback), so what only it held is lost"
                    ))
            }
        }
        var replayed = 0
        for entry in try entries(after: after) {
            _ = reducer.reduce(into: &state, action: entry.action)
            replayed += 1
        }
        return (state, replayed)
    }

    /// The durable actions after `sequence` (up to `last`, if given), in order.
    public func entries(after sequence: Int = 0, through last: Int? = nil) throws(DatabaseError) -> [Entry] {
        let batches = try database.read { db throws(DatabaseError) in
            try db.query(
                """
                SELECT first_sequence, actions, count FROM journal
                WHERE stream = ? AND first_sequence + count - 1 > ? AND first_sequence <= ?
                ORDER BY first_sequence
                """, [.text(stream), .int(sequence), .int(last ?? Int.max)]
            ) { (first: $0.int(0), bytes: $0.blob(1), count: $0.int(2)) }
        }
        var entries: [Entry] = []
        let decoded = Self.decode(batches.map { ($0.first, $0.bytes) }, reading: storedNotes)
        for (batch, result) in zip(batches, decoded) {
            let actions: [Action]
            switch result {
            case .success(let read) where read.count == batch.count:
                actions = read
            case .success(let read):
                report(
                    .damaged(
                        "actions \(batch.first)–\(batch.first + batch.count - 1) could not be read (the batch holds \(read.count) instead of \(batch.count)); they were skipped"
                    ))
                continue
            case .failure(let error):
                report(.damaged("actions \(batch.first)–\(batch.first + batch.count - 1) could not be read (\(Self.brief(error))); they were skipped"))
                continue
            }
            let first = batch.first
            for (offset, action) in actions.enumerated() {
                let position = first + offset
                if position > sequence, position <= (last ?? Int.max) { entries.append(Entry(sequence: position, action: action)) }
            }
        }
        return entries
    }

    /// The actions in `range` as a script.
    public func export(_ range: ClosedRange<Int>) throws(DatabaseError) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var lines: [String] = []
        for entry in try entries(after: range.lowerBound - 1, through: range.upperBound) {
            do {
                lines.append(String(decoding: try encoder.encode(entry.action), as: UTF8.self))
            } catch {
                throw DatabaseError(.other, operation: "encode action \(entry.sequence)", message: "\(error)")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// Deletes what the latest snapshot makes unnecessary: the actions it covers and older snapshots.
    public func compact() throws(DatabaseError) {
        try flush()
        try database.write { db throws(DatabaseError) in
            guard
                let latest = try db.query("SELECT max(sequence) FROM snapshots WHERE stream = ?", [.text(stream)], { $0.isNull(0) ? nil : $0.int(0) }).first
                    ?? nil
            else {
                return
            }
            try db.execute("DELETE FROM journal WHERE stream = ? AND first_sequence + count - 1 <= ?", [.text(stream), .int(latest)])
            try db.execute("DELETE FROM snapshots WHERE stream = ? AND sequence < ?", [.text(stream), .int(latest)])
        }
    }

    // MARK: - Coding

    /// Actions per stored batch: small enough to encode and decode on every core at once.
    static var chunkSize: Int { 2_048 }

    /// `batch` as JSON arrays of at most ``chunkSize`` actions, encoded in parallel.
    private static func encode(_ batch: [Action]) throws(DatabaseError) -> [(count: Int, data: [UInt8])] {
        // One chunk (a commit a front end waits for holds a few actions) is encoded here, with no
        // thread to wake.
        if batch.count <= chunkSize {
            do {
                return [(batch.count, try CompactCoding.encode(batch, userInfo: Self.writing))]
            } catch {
                throw DatabaseError(.other, operation: "encode \(batch.count) journal actions", message: "\(error)")
            }
        }
        let ranges = stride(from: 0, to: batch.count, by: chunkSize).map { $0..<min($0 + chunkSize, batch.count) }
        let results = Locked([Result<[UInt8], any Error>?](repeating: nil, count: ranges.count))
        DispatchQueue.concurrentPerform(iterations: ranges.count) { index in
            let result = Result { try CompactCoding.encode(Array(batch[ranges[index]]), userInfo: Self.writing) }
            results.withLock { $0[index] = result }
        }
        var chunks: [(count: Int, data: [UInt8])] = []
        for (range, result) in zip(ranges, results.withLock { $0 }) {
            switch result {
            case .success(let data)?: chunks.append((range.count, data))
            case .failure(let error)?: throw DatabaseError(.other, operation: "encode \(range.count) journal actions", message: "\(error)")
            case nil: throw DatabaseError(.other, operation: "encode journal actions", message: "a chunk was not encoded")
            }
        }
        return chunks
    }

    /// How documents are written: stored notes by reference, so none grows with the notes.
    private static var writing: [CodingUserInfoKey: any Sendable] { [.storedNotesByReference: true] }

    /// A stored document: compact, or JSON as journals written before the compact format hold;
    /// the notes it names by reference read from `storedNotes`.
    private static func decodeDocument<T: Decodable>(_ type: T.Type, from bytes: [UInt8], reading storedNotes: StoredNotes) throws -> T {
        let userInfo: [CodingUserInfoKey: any Sendable] = [.storedNotes: storedNotes]
        if CompactCoding.isCompact(bytes) { return try CompactCoding.decode(type, from: bytes, userInfo: userInfo) }
        let decoder = JSONDecoder()
        decoder.userInfo = userInfo
        return try decoder.decode(type, from: Data(bytes))
    }

    /// The actions of each stored batch, decoded in parallel, or why a batch does not decode.
    private static func decode(_ batches: [(first: Int, bytes: [UInt8])], reading storedNotes: StoredNotes) -> [Result<[Action], any Error>] {
        let results = Locked([Result<[Action], any Error>?](repeating: nil, count: batches.count))
        DispatchQueue.concurrentPerform(iterations: batches.count) { index in
            let result = Result { try Self.decodeDocument([Action].self, from: batches[index].bytes, reading: storedNotes) }
            results.withLock { $0[index] = result }
        }
        return results.withLock { $0 }.map { $0 ?? .failure(DatabaseError(.other, operation: "decode a journal batch", message: "it was not decoded")) }
    }

    /// The first line of `error`'s description, at most 160 characters: enough to say what broke.
    private static func brief(_ error: any Error) -> String {
        let text = String(describing: error).split(separator: "\n").first.map(String.init) ?? ""
        return text.count > 160 ? text.prefix(159) + "…" : text
    }

    // MARK: - Background flushing

    /// Flushes after ``flushInterval`` on the commit queue, again while actions keep coming, and
    /// after pauses that grow to a second while writing keeps failing.
    private func scheduleFlush(after pause: Duration? = nil) {
        let pause = pause ?? flushInterval
        let scheduled = buffer.withLock { buffer -> Bool in
            guard !buffer.isClosed, !buffer.flushScheduled else { return false }
            buffer.flushScheduled = true
            return true
        }
        guard scheduled else { return }
        let nanoseconds = Int(clamping: pause.components.seconds * 1_000_000_000 + pause.components.attoseconds / 1_000_000_000)
        committing.asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [weak self] in
            guard let self else { return }
            let idle = self.buffer.withLock { buffer -> Bool in
                buffer.flushScheduled = false
                return buffer.pending.isEmpty || buffer.isClosed
            }
            if idle { return }
            // A failed flush keeps the actions buffered; the next one retries them.
            do {
                try self.flush()
                self.scheduleFlush()
            } catch {
                self.scheduleFlush(after: min(pause * 2, Self.longestRetryPause))
            }
        }
    }
}

/// The callers waiting for a commit, failed by a watchdog past their deadline.
final class CommitWaiters: Sendable {
    typealias Continuation = CheckedContinuation<Result<Int, DatabaseError>, Never>

    private struct State {
        var waiting: [UInt64: (continuation: Continuation, deadline: ContinuousClock.Instant, timeout: Duration)] = [:]
        var next: UInt64 = 0
        var watchdog: (any DispatchSourceTimer)?
    }

    private let path: String
    private let state = Locked(State())

    init(path: String) {
        self.path = path
    }

    /// Registers `continuation`, to be answered by ``answer(_:with:)`` or failed after `deadline`.
    func add(_ continuation: Continuation, deadline: ContinuousClock.Instant, timeout: Duration) -> UInt64 {
        state.withLock { state in
            defer { state.next += 1 }
            state.waiting[state.next] = (continuation, deadline, timeout)
            if state.watchdog == nil {
                let timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
                timer.schedule(deadline: .now() + .milliseconds(500), repeating: .milliseconds(500))
                timer.setEventHandler { [weak self] in self?.failOverdue() }
                timer.resume()
                state.watchdog = timer
            }
            return state.next
        }
    }

    /// Answers waiter `id` with `result`, unless the watchdog failed it already.
    func answer(_ id: UInt64, with result: Result<Int, DatabaseError>) {
        let waiter = state.withLock { $0.waiting.removeValue(forKey: id) }
        waiter?.continuation.resume(returning: result)
    }

    private func failOverdue() {
        let now = ContinuousClock.now
        let overdue = state.withLock { state -> [(continuation: Continuation, deadline: ContinuousClock.Instant, timeout: Duration)] in
            let ids = state.waiting.filter { $0.value.deadline <= now }.map(\.key)
            let overdue = ids.compactMap { state.waiting.removeValue(forKey: $0) }
            if state.waiting.isEmpty {
                state.watchdog?.cancel()
                state.watchdog = nil
            }
            return overdue
        }
        for waiter in overdue {
            waiter.continuation.resume(
                returning: .failure(DatabaseError(.busy, operation: "write \(path)", message: "the database did not answer within \(waiter.timeout)")))
        }
    }
}

/// The process that writes a journal stream: its id and start time, so a stream whose process is
/// gone is told from one still written, even once the id is reused.
struct StreamOwner: Equatable {
    let pid: Int32
    /// When it started (clock ticks since boot on Linux), or 0 where that cannot be read.
    let started: Int

    static let current = StreamOwner(pid: getpid(), started: startTime(of: getpid()) ?? 0)

    /// Whether the process still runs: its id is in use, by a process that started when it did.
    var isRunning: Bool {
        guard kill(pid, 0) == 0 || errno == EPERM else { return false }
        guard started != 0, let now = Self.startTime(of: pid) else { return true }
        return now == started
    }

    /// Field 22 of `/proc/<pid>/stat` (after the command name, which may hold spaces).
    private static func startTime(of pid: Int32) -> Int? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        // Fields from the state (3rd) on: the start time is the 22nd, the 20th of these.
        return fields.count > 19 ? Int(fields[19]) : nil
    }
}
