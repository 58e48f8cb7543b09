import Foundation
import Models
import StateStore

/// The notes' full-text index (`notes_search`, FTS5 trigrams over each note's ``SearchText``
/// folded text), kept up to date in small steps off the writers' path.
///
/// Writing a note only marks it (`search_indexed = 0`, in the same row). Once writes have been
/// quiet for a moment, a background task indexes the marked notes in batches of a bounded size,
/// each its own short transaction, so no other connection ever waits long for the write lock,
/// however many notes a bulk import left behind. A search never waits for it: it reads notes not
/// indexed yet and matches them itself. A deleted note's index row goes in the delete's
/// transaction; the rows of edited-away text that are left when the database closes are removed
/// then.
package final class SearchIndex: Sendable {
    private struct State {
        /// Whether the background task runs.
        var isRunning = false
        /// When a note was last written: indexing waits for writes to be quiet.
        var lastWrite = ContinuousClock.now
        /// Where the next batch starts: after this note (in the table's key order).
        var cursor: (owner: String, id: String)?
    }

    private weak let database: Database?
    private let state = Locked(State())

    /// How long writes must be quiet before indexing starts.
    static let quietPeriod: Duration = .milliseconds(250)
    /// The most notes, and the most text, one batch indexes: about 20 ms of work, so another
    /// writer waits at most that long.
    static let batchNotes = 128
    static let batchBytes = 64 * 1024

    init(database: Database) {
        self.database = database
        database.beforeClosing { db in
            // Edited-away text still in the index leaves the file when the database closes.
            try? SearchIndex.removeStaleRows(in: db)
        }
    }

    /// Indexes every note not indexed yet, batch by batch, now: for tests and tools that need
    /// the index whole rather than soon.
    package static func indexAll(in database: Database) throws(DatabaseError) {
        let index = SearchIndex(database: database)
        while try index.indexNextBatch() > 0 {}
    }

    /// Indexes what is not indexed yet — notes just written (`afterWrite`), or those a search
    /// read unindexed — once writes have been quiet for ``quietPeriod``.
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
            while let self {
                let quietFor = state.withLock { $0.lastWrite.duration(to: .now) }
                if quietFor < Self.quietPeriod {
                    try? await Task.sleep(for: Self.quietPeriod - quietFor)
                    continue
                }
                let indexed: Int
                do {
                    indexed = try indexNextBatch()
                } catch {
                    // Closed, read-only or failing: the notes stay marked, and are found by
                    // scanning until a later run indexes them.
                    indexed = 0
                }
                if indexed == 0 {
                    // Done, unless a write came in meanwhile.
                    let again = state.withLock { state -> Bool in
                        let again = state.lastWrite.duration(to: .now) < Self.quietPeriod
                        if !again { state.isRunning = false }
                        return again
                    }
                    if !again { return }
                }
                // Between batches other connections take the lock.
                try? await Task.sleep(for: .milliseconds(2))
            }
        }
    }

    /// Indexes the next batch of marked notes in one transaction; returns how many (0: none left).
    @discardableResult
    func indexNextBatch() throws(DatabaseError) -> Int {
        guard let database else { return 0 }
        let cursor = state.withLock { $0.cursor }
        let (count, last) = try database.write { db throws(DatabaseError) -> (Int, (String, String)?) in
            guard try db.tableExists("notes_search") else { return (0, nil) }
            var rows = try Self.marked(after: cursor, in: db)
            if rows.isEmpty, cursor != nil { rows = try Self.marked(after: nil, in: db) }
            guard !rows.isEmpty else { return (0, nil) }
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
            return (taken, (last.owner, last.id))
        }
        if let last { state.withLock { $0.cursor = last } }
        return count
    }

    private static func marked(after cursor: (owner: String, id: String)?, in db: Connection) throws(DatabaseError)
        -> [(owner: String, id: String, text: String, searchRow: Int?)]
    {
        let after = cursor.map { _ in " AND (owner_id, id) > (?, ?)" } ?? ""
        return try db.query(
            """
            SELECT owner_id, id, text, search_rowid FROM notes WHERE search_indexed = 0\(after)
            ORDER BY owner_id, id LIMIT \(batchNotes)
            """, cursor.map { [.text($0.owner), .text($0.id)] } ?? []
        ) { row in
            (row.text(0), row.text(1), row.text(2), row.isNull(3) ? nil : row.int(3))
        }
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
