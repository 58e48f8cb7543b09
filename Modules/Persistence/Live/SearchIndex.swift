import Foundation
import Models
import StateStore

/// The notes' full-text index (`notes_search`, FTS5 trigrams over each note's ``SearchText``
/// folded text), kept up to date in small steps off the writers' path.
///
/// Writing a note only marks it (`search_indexed = 0`, in the same row). A background task indexes
/// the marked notes in batches of a bounded size, each its own short transaction, so no other
/// connection ever waits long for the write lock, however many notes a bulk import left behind;
/// it goes on at its pace while writes continue (batch after batch when more than a batch came
/// in a pace), so under a steady stream of writes the notes not indexed yet stay about one
/// pace's worth. A search never waits for it: it reads notes not
/// indexed yet and matches them itself. A deleted note's index row goes in the delete's
/// transaction; the rows of edited-away text that are left when the database closes are removed
/// then.
package final class SearchIndex: Sendable {
    private struct State {
        /// Whether the background task runs.
        var isRunning = false
        /// When a note was last written: the task stops once a look finds nothing marked and no
        /// write came since that look began.
        var lastWrite = ContinuousClock.now
        /// Where the next batch starts: after this note (in the table's key order).
        var cursor: (owner: String, id: String)?
        /// Whether the last batch left marked notes behind (it was full).
        var hasMore = false
    }

    private weak let database: Database?
    private let state = Locked(State())

    /// How long the task rests before a batch that is not part of a backlog: the notes written
    /// meanwhile are indexed together, in one transaction rather than one each
    /// (`LiveConfiguration.searchIndexPace`).
    private let pace: Duration
    /// The most notes, and the most text, one batch indexes: about 20 ms of work, so another
    /// writer waits at most that long.
    static let batchNotes = 128
    static let batchBytes = 64 * 1024

    init(database: Database, pace: Duration) {
        self.database = database
        self.pace = pace
        database.beforeClosing { db in
            // Edited-away text still in the index leaves the file when the database closes.
            try? SearchIndex.removeStaleRows(in: db)
        }
    }

    /// Indexes every note not indexed yet, batch by batch, now: for tests and tools that need
    /// the index whole rather than soon.
    package static func indexAll(in database: Database) throws(DatabaseError) {
        // Indexed here, batch after batch: the background task and its pace play no part.
        let index = SearchIndex(database: database, pace: .zero)
        while try index.indexNextBatch() > 0 {}
    }

    /// Indexes what is not indexed yet — notes just written (`afterWrite`), or those a search
    /// read unindexed — a pace from now and on.
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
                    // Closed, read-only or failing: the notes stay marked, and are found by
                    // scanning until a later run indexes them.
                    indexed = 0
                }
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
                // indexed together; a backlog (the batch left marked notes) is indexed batch after
                // batch, with breaths in which writers take the lock, whether writes go on or not:
                // a stream faster than a batch per pace would otherwise leave ever more behind.
                let hasMore = state.withLock { $0.hasMore }
                rest = hasMore ? .milliseconds(2) : pace
            }
        }
    }

    /// Indexes the next batch of marked notes in one transaction; returns how many (0: none left).
    @discardableResult
    func indexNextBatch() throws(DatabaseError) -> Int {
        guard let database else { return 0 }
        let cursor = state.withLock { $0.cursor }
        let (count, last, hasMore) = try database.write { db throws(DatabaseError) -> (Int, (String, String)?, Bool) in
            guard try db.tableExists("notes_search") else { return (0, nil, false) }
            var rows = try Self.marked(after: cursor, in: db)
            if rows.isEmpty, cursor != nil { rows = try Self.marked(after: nil, in: db) }
            guard !rows.isEmpty else { return (0, nil, false) }
            var next = try db.query("SELECT coalesce(max(rowid), 0) FROM notes_search") { $0.int(0) }.first ?? 0
            var bytes = 0
            var taken = 0
            for row in rows {
                if taken > 0, bytes + row.text.utf8.count > Self.batchBytes { break }
                bytes += row.text.utf8.count
                taken += 1
                let searchRow: Int
                if let existing = row.searchRow {
                    try Self.remove(row: existing, in: db)
                    searchRow = existing
                } else {
                    next += 1
                    searchRow = next
                }
                try db.execute("INSERT INTO notes_search (rowid, text) VALUES (?, ?)", [.int(searchRow), .text(SearchText.folded(row.text))])
                try db.execute(
                    "UPDATE notes SET search_indexed = 1, search_rowid = ? WHERE owner_id = ? AND id = ?",
                    [.int(searchRow), .text(row.owner), .text(row.id)])
            }
            let last = rows[taken - 1]
            return (taken, (last.owner, last.id), taken < rows.count || rows.count == Self.batchNotes)
        }
        state.withLock { state in
            if let last { state.cursor = last }
            state.hasMore = hasMore
        }
        return count
    }

    private static func marked(after cursor: (owner: String, id: String)?, in db: Connection) throws(DatabaseError)
        -> [(owner: String, id: String, text: String, searchRow: Int?)]
    {
        try db.query(markedNotes(after: cursor != nil), cursor.map { [.text($0.owner), .text($0.id)] } ?? []) { row in
            (row.text(0), row.text(1), row.text(2), row.isNull(3) ? nil : row.int(3))
        }
    }

    /// The next batch of marked notes, in the table's key order (after a cursor's `?, ?` when
    /// `afterCursor`), through the index of marked notes alone.
    static func markedNotes(after afterCursor: Bool) -> String {
        """
        SELECT owner_id, id, text, search_rowid FROM notes INDEXED BY notes_unindexed WHERE search_indexed = 0\(afterCursor ? " AND (owner_id, id) > (?, ?)" : "")
        ORDER BY owner_id, id LIMIT \(batchNotes)
        """
    }

    /// Removes index row `row` (FTS5 deletes its terms and its copy of the folded text); a note
    /// has an index row only where there is an index.
    static func remove(row: Int, in db: Connection) throws(DatabaseError) {
        try db.execute("DELETE FROM notes_search WHERE rowid = ?", [.int(row)])
    }

    /// Removes the index rows that still hold the text of notes edited since they were indexed.
    static func removeStaleRows(in db: Connection) throws(DatabaseError) {
        guard try db.tableExists("notes_search") else { return }
        try db.execute("SAVEPOINT stale_search_rows")
        try db.execute("DELETE FROM notes_search WHERE rowid IN (SELECT search_rowid FROM notes WHERE search_indexed = 0 AND search_rowid IS NOT NULL)")
        try db.execute("UPDATE notes SET search_rowid = NULL WHERE search_indexed = 0 AND search_rowid IS NOT NULL")
        try db.execute("RELEASE stale_search_rows")
    }
}
