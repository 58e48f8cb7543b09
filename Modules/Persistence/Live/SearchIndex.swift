import Foundation
import Models
import StateStore

/// The notes' full-text index (`notes_search`, FTS5 trigrams over each note's ``SearchText``
/// folded text), kept up to date in small steps off the writers' path.
package final class SearchIndex: Sendable {
    private struct State {
        var isRunning = false
        /// When a note was last written: the task stops once a look finds nothing new to index.
        var lastWrite = ContinuousClock.now
        /// Whether the last batch left notes to index behind (it was full).
        var hasMore = false
        /// How many notes the next batch may take, as ``BatchSize`` steers it.
        var batch = BatchSize()
    }

    private weak let database: Database?
    private let state = Locked(State())

    /// How long the task rests before a batch outside a backlog, to index writes together.
    private let pace: Duration
    /// How many notes a batch indexes, and how much text.
    struct BatchSize {
        private(set) var notes = whileWriting
        /// The most text the next batch takes, in bytes: long notes cost more than their number.
        var bytes: Int { notes * 512 }

        static let whileWriting = 128
        static let smallest = 16
        static let largest = 8_192
        /// The work a batch should hold the write lock for, at most about.
        static let lockHold = Duration.milliseconds(10)

        /// The size after a batch that held the lock for `took`, full or not, during writes or not.
        mutating func adjust(after took: Duration, wasFull: Bool, duringWrites: Bool) {
            if took > Self.lockHold {
                notes = Swift.max(Self.smallest, notes / 2)
            } else if duringWrites {
                notes = Swift.min(notes, Self.whileWriting)
            } else if wasFull, took < Self.lockHold / 2 {
                notes = Swift.min(Self.largest, notes * 2)
            }
        }
    }

    init(database: Database, pace: Duration) {
        self.database = database
        self.pace = pace
        database.beforeClosing { db in
            // Edited-away text still in the index leaves the file when the database closes.
            try? SearchIndex.removeStaleRows(in: db)
        }
    }

    /// Indexes every note not indexed yet now, for tests and tools that need the index whole.
    package static func indexAll(in database: Database) throws(DatabaseError) {
        // Indexed here, batch after batch: the background task and its pace play no part.
        let index = SearchIndex(database: database, pace: .zero)
        while try index.indexNextBatch() > 0 { try index.mergeSegments() }
    }

    /// Indexes notes not indexed yet (just written, or read unindexed by a search), at a pace.
    func catchUp(afterWrite: Bool = false) {
        let start = state.withLock { state -> Bool in
            if afterWrite { state.lastWrite = .now }
            defer { state.isRunning = true }
            return !state.isRunning
        }
        if start { startTask() }
    }

    private func startTask() {
        Task.detached(priority: .utility) { [weak self] in
            var rest = self?.pace ?? .zero
            while true {
                try? await Task.sleep(for: rest)
                guard let self else { return }
                let looked = ContinuousClock.now
                let indexed: Int
                do {
                    indexed = try indexNextBatch()
                } catch {
                    // Closed, read-only or failing: the notes stay after the progress, and are found by
                    // scanning until a later run indexes them.
                    indexed = 0
                }
                // A merge that fails is tried again after the next batch; searches read the same.
                if indexed > 0 { try? mergeSegments() }
                if indexed == 0 {
                    // Done, unless a write came in since the look (a write after the lock below
                    // finds the task stopped and starts another).
                    let done = state.withLock { state -> Bool in
                        let done = state.lastWrite < looked
                        if done { state.isRunning = false }
                        return done
                    }
                    if done { return }
                }
                // Caught up, the next batch waits a pace, so the notes written meanwhile are
                // indexed together; a backlog (the batch left notes behind) is indexed batch after
                // batch, with breaths in which writers take the lock, whether writes go on or not:
                // a stream faster than a batch per pace would otherwise leave ever more behind.
                let hasMore = state.withLock { $0.hasMore }
                rest = hasMore ? .milliseconds(2) : pace
            }
        }
    }

    /// Indexes the next batch of notes in one transaction; returns how many (0: none left).
    @discardableResult
    func indexNextBatch() throws(DatabaseError) -> Int {
        guard let database else { return 0 }
        let size = state.withLock { $0.batch }
        // Measured with the commit, which writes the batch's index segment; and with any wait
        // for the lock, which only makes the next batch smaller.
        let started = ContinuousClock.now
        let (count, hasMore) = try database.write { db throws(DatabaseError) -> (Int, Bool) in
            guard try db.tableExists("notes_search") else { return (0, false) }
            // The first owner with notes after its progress (accounts are few; each look is an
            // index seek).
            let owners = try db.query(
                "SELECT accounts.id, coalesce(search_progress.indexed_through, 0) FROM accounts LEFT JOIN search_progress ON search_progress.owner_id = accounts.id"
            ) { (owner: $0.text(0), through: Int64($0.int(1))) }
            for (owner, through) in owners {
                let rows = try db.query(Self.notesToIndex, [.text(owner), .integer(through), .int(size.notes)]) { row in
                    (id: row.text(0), text: row.text(1), searchRow: row.isNull(2) ? nil : row.int(2), change: Int64(row.int(3)))
                }
                guard !rows.isEmpty else { continue }
                var next = try db.query("SELECT coalesce(max(rowid), 0) FROM notes_search") { $0.int(0) }.first ?? 0
                var bytes = 0
                var taken = 0
                for row in rows {
                    if taken > 0, bytes + row.text.utf8.count > size.bytes { break }
                    bytes += row.text.utf8.count
                    taken += 1
                    let searchRow: Int
                    if let existing = row.searchRow {
                        // Indexed before: its row is replaced, under the same number.
                        try Self.remove(row: existing, in: db)
                        searchRow = existing
                    } else {
                        next += 1
                        searchRow = next
                        try db.execute("UPDATE notes SET search_rowid = ? WHERE owner_id = ? AND id = ?", [.int(searchRow), .text(owner), .text(row.id)])
                    }
                    try db.execute("INSERT INTO notes_search (rowid, text) VALUES (?, ?)", [.int(searchRow), .text(SearchText.folded(row.text))])
                }
                try db.execute(
                    """
                    INSERT INTO search_progress (owner_id, indexed_through) VALUES (?, ?)
                    ON CONFLICT (owner_id) DO UPDATE SET indexed_through = excluded.indexed_through
                    """, [.text(owner), .integer(rows[taken - 1].change)])
                return (taken, taken < rows.count || rows.count == size.notes)
            }
            return (0, false)
        }
        let took = started.duration(to: .now)
        state.withLock { state in
            state.hasMore = hasMore
            if count > 0 { state.batch.adjust(after: took, wasFull: hasMore, duringWrites: state.lastWrite > started) }
        }
        return count
    }

    /// Pages of merged segments one merge step writes: a few milliseconds of work.
    static let mergePages = 64
    /// The most merge steps after one batch: more than a batch's segments need, so merging keeps
    /// up with indexing, however far behind an earlier run left it.
    static let mergeStepsPerBatch = 32

    /// Merges the index's segments in short steps, up to ``mergeStepsPerBatch``.
    func mergeSegments() throws(DatabaseError) {
        for _ in 0..<Self.mergeStepsPerBatch {
            guard try mergeStep() else { return }
        }
    }

    private func mergeStep() throws(DatabaseError) -> Bool {
        guard let database else { return false }
        return try database.write { db throws(DatabaseError) -> Bool in
            guard try db.tableExists("notes_search") else { return false }
            let before = db.totalChanges
            try db.execute("INSERT INTO notes_search (notes_search, rank) VALUES ('merge', \(Self.mergePages))")
            // FTS5 counts two changes or more for a step that merged something.
            return db.totalChanges - before >= 2
        }
    }

    /// The next batch of an owner's notes after its progress (`?, ?`: the owner, the change
    /// number indexed through), in change order, through the index of changes alone.
    static let notesToIndex = """
        SELECT id, text, search_rowid, change_sequence FROM notes INDEXED BY notes_by_change
        WHERE owner_id = ? AND change_sequence > ? ORDER BY change_sequence LIMIT ?
        """

    /// The change number `owner` (an SQL expression) has its notes indexed through: its notes up
    /// to it are in the index with their text, those after it are not (yet).
    static func progress(ofOwner owner: String) -> String {
        "coalesce((SELECT indexed_through FROM search_progress WHERE owner_id = \(owner)), 0)"
    }

    /// ``progress(ofOwner:)`` of the owner of a row of `notes`.
    package static let progressOfNotesOwner = progress(ofOwner: "notes.owner_id")

    /// Removes index row `row` where there is an index.
    static func remove(row: Int, in db: Connection) throws(DatabaseError) {
        try db.execute("DELETE FROM notes_search WHERE rowid = ?", [.int(row)])
    }

    /// Removes the index rows that still hold the text of notes edited since they were indexed.
    static func removeStaleRows(in db: Connection) throws(DatabaseError) {
        guard try db.tableExists("notes_search") else { return }
        let stale = """
            SELECT notes.owner_id, notes.id, notes.search_rowid FROM accounts CROSS JOIN notes INDEXED BY notes_by_change
            ON notes.owner_id = accounts.id
            AND notes.change_sequence > coalesce((SELECT indexed_through FROM search_progress WHERE owner_id = accounts.id), 0)
            WHERE notes.search_rowid IS NOT NULL
            """
        let rows = try db.query(stale) { (owner: $0.text(0), id: $0.text(1), searchRow: $0.int(2)) }
        guard !rows.isEmpty else { return }
        try db.execute("SAVEPOINT stale_search_rows")
        for row in rows {
            try remove(row: row.searchRow, in: db)
            try db.execute("UPDATE notes SET search_rowid = NULL WHERE owner_id = ? AND id = ?", [.text(row.owner), .text(row.id)])
        }
        try db.execute("RELEASE stale_search_rows")
    }
}
