import AppEnvironment
import Foundation
import Models

/// The notes client's rules: the signed-in user's notes, searched through the full-text index (`SearchIndex`).
extension LiveBackend {

    /// The user's notes, most recently changed first; with a `query`, those that match it, through
    /// the full-text index and the few notes not indexed yet, so a search never waits for the
    /// index.
    func notes(_ token: AccessToken, matching query: String = "") throws(AppError) -> [Note] {
        let words = SearchText.words(of: query)
        var damaged: [String] = []
        let notes = try reading(token) { db, owner throws(AppError) in
            try storage { () throws(DatabaseError) -> [Note] in
                // A damaged row is left out and named; the other notes are still listed.
                let read = { (row: Row) in Self.read(row, NotesTable.note, damaged: &damaged) }
                let columns = Self.noteColumns + " WHERE owner_id = ?"
                let owner: [SQLValue] = [.text(owner.description)]
                // Every note, or without a full-text index every note that matches.
                guard !words.isEmpty, try db.tableExists("notes_search") else {
                    return try db.query(columns + Self.listOrder, owner, read).compactMap { $0 }
                        .filter { words.isEmpty || SearchText.text($0.text, holdsEvery: words) }
                }
                // From the index's matches to their notes, and the few notes not indexed yet: what
                // a search reads grows with what it finds, not with the notes (the planner, without
                // statistics, would read every note of the owner instead).
                let (condition, bindings) = Self.indexCondition(words)
                let indexed = try db.query(Self.indexedMatches(condition), bindings + owner + owner, read)
                let recent = try db.query(Self.unindexedNotes, owner, read)
                    .filter { $0.map { SearchText.text($0.text, holdsEvery: words) } ?? true }
                return (indexed + recent).compactMap { $0 }.sorted { $0.isListed(before: $1) }
            }
        }
        warn(damaged: damaged)
        if !words.isEmpty { searchIndex.catchUp() }
        return notes
    }

    /// A page of the user's notes (or of those matching `query`) after `after`, and how many there
    /// are: its cost grows with the page and SQLite's count, not with the notes.
    func page(_ token: AccessToken, matching query: String, after: NotesPosition?, limit: Int) throws(AppError) -> NotePage {
        let words = SearchText.words(of: query)
        var damaged: [String] = []
        let page = try reading(token) { db, owner throws(AppError) in
            try storage { () throws(DatabaseError) -> NotePage? in
                // One read transaction: the page, its count and the index's progress as one moment.
                try db.readTransaction(
                    { (db: Connection) throws(DatabaseError) -> NotePage? in
                        let read = { (row: Row) in Self.read(row, NotesTable.note, damaged: &damaged) }
                        let owner: [SQLValue] = [.text(owner.description)]
                        let (afterCondition, afterBindings) = Self.after(after, in: "notes")
                        let limitBinding: [SQLValue] = [.int(max(0, limit))]
                        if words.isEmpty {
                            let notes = try db.query(
                                Self.noteColumns + " INDEXED BY notes_in_list_order WHERE owner_id = ?" + afterCondition + Self.listOrder + " LIMIT ?",
                                owner + afterBindings + limitBinding, read)
                            let total = try db.query(Self.ownersCount, owner) { $0.int(0) }.first ?? 0
                            return NotePage(notes: notes.compactMap { $0 }, total: total)
                        }
                        guard try db.tableExists("notes_search") else { return nil }
                        let (condition, bindings) = Self.indexCondition(words)
                        // How the page is read depends on how many notes match (every owner's, told
                        // by the index alone): few are read and sorted whole; many that are most of a
                        // sole owner's, the notes are walked in the list's order and matched here
                        // until the page is full; other many, the owner's notes are walked and kept
                        // if the set of matches holds them.
                        let matches = try db.query("SELECT count(*) FROM notes_search WHERE " + condition, bindings) { $0.int(0) }.first ?? 0
                        let notes = try db.query(Self.ownersCount, owner) { $0.int(0) }.first ?? 0
                        let owners = try db.query("SELECT count(*) FROM note_counts WHERE count > 0") { $0.int(0) }.first ?? 0
                        let indexedNotes = " INDEXED BY notes_in_list_order WHERE owner_id = ? AND change_sequence <= \(SearchIndex.progress(ofOwner: "?"))"
                        let inSet = " AND notes.search_rowid IN (SELECT rowid FROM notes_search WHERE \(condition))"
                        let indexed: [Note?]
                        if matches <= Self.matchesSortedWhole {
                            indexed = try db.query(
                                Self.indexedMatches(condition) + afterCondition + " ORDER BY notes.updated_at DESC, notes.id DESC LIMIT ?",
                                bindings + owner + owner + afterBindings + limitBinding, read)
                        } else if owners == 1, matches * 2 >= notes {
                            indexed = try Self.walk(
                                Self.noteColumns + indexedNotes, owner + owner, after: (afterCondition, afterBindings), keeping: limit, in: db, read
                            ) { SearchText.text($0.text, holdsEvery: words) }
                        } else {
                            indexed = try db.query(
                                Self.noteColumns + indexedNotes + afterCondition + inSet + Self.listOrder + " LIMIT ?",
                                owner + owner + afterBindings + bindings + limitBinding, read)
                        }
                        let recent = try db.query(Self.unindexedNotes, owner, read).compactMap { $0 }
                            .filter { SearchText.text($0.text, holdsEvery: words) }
                        // The count: with one owner, the index's own, less the rows of notes changed
                        // since they were indexed (their notes are among `recent` if they match now).
                        let indexedCount: Int
                        if owners == 1, notes > 0 {
                            let stale =
                                try db.query(
                                    "SELECT count(*) FROM notes_search WHERE \(condition) AND rowid IN (SELECT search_rowid FROM notes "
                                        + "INDEXED BY notes_by_change WHERE owner_id = ? AND change_sequence > \(SearchIndex.progress(ofOwner: "?")) "
                                        + "AND search_rowid IS NOT NULL)",
                                    bindings + owner + owner
                                ) { $0.int(0) }.first ?? 0
                            indexedCount = matches - stale
                        } else if matches <= Self.matchesSortedWhole {
                            indexedCount =
                                try db.query(
                                    "SELECT count(*) FROM (\(Self.indexedMatchIDs(condition)) AND notes.change_sequence <= \(SearchIndex.progress(ofOwner: "?")))",
                                    bindings + owner + owner
                                ) { $0.int(0) }.first ?? 0
                        } else {
                            indexedCount =
                                try db.query("SELECT count(*) FROM notes" + indexedNotes + inSet, owner + owner + bindings) { $0.int(0) }.first ?? 0
                        }
                        let found = (indexed.compactMap { $0 } + recent.filter { after?.comesBefore($0) ?? true })
                            .sorted { $0.isListed(before: $1) }.prefix(max(0, limit))
                        return NotePage(notes: Array(found), total: indexedCount + recent.count)
                    }, orFail: { $0 })
            }
        }
        warn(damaged: damaged)
        if !words.isEmpty { searchIndex.catchUp() }
        if let page { return page }
        // Without a full-text index, every note is read and matched anyway.
        return NotePage(of: try notes(token, matching: query), after: after, limit: limit)
    }

    /// The first `limit` notes `select` reads after `after` that `keeps`, and the damaged rows
    /// among them, read a few pages at a time so a walk stops about where the page fills.
    static func walk(
        _ select: String, _ bindings: [SQLValue], after: (String, [SQLValue]), keeping limit: Int, in db: Connection,
        _ read: (Row) -> Note?, keeps: (Note) -> Bool
    ) throws(DatabaseError) -> [Note?] {
        var kept: [Note?] = []
        var found = 0
        var (condition, position) = after
        let chunk = max(2 * limit, 64)
        while found < limit {
            var last: (updatedAt: Double, id: String)?
            let rows = try db.query(select + condition + listOrder + " LIMIT ?", bindings + position + [.int(chunk)]) { row -> Note?? in
                last = NotesTable.listPosition(row)
                guard let note = read(row) else { return .some(nil) }
                return keeps(note) ? .some(note) : nil
            }
            for row in rows {
                guard let note = row else { continue }
                kept.append(note)
                if note != nil { found += 1 }
            }
            guard let last, rows.count == chunk else { break }
            (condition, position) = (" AND (notes.updated_at, notes.id) < (?, ?)", [.real(last.updatedAt), .text(last.id)])
        }
        // The page, and the damaged rows read before its last note.
        var counted = 0
        return Array(
            kept.prefix { note in
                if note != nil { counted += 1 }
                return counted <= limit
            })
    }

    /// How many notes the owner (its `?`) has: kept by the notes table's triggers.
    static let ownersCount = "SELECT coalesce((SELECT count FROM note_counts WHERE owner_id = ?), 0)"

    /// Up to how many matches of the index (every owner's) a search page is sorted from them
    /// all; with more, the owner's notes are walked in the list's order instead.
    static let matchesSortedWhole = 1_000

    /// The `WHERE` condition and values that keep the notes of `table` listed after `position`.
    private static func after(_ position: NotesPosition?, in table: String) -> (String, [SQLValue]) {
        guard let position else { return ("", []) }
        let time: SQLValue = .real(position.updatedAt.timeIntervalSinceReferenceDate)
        return (
            " AND (\(table).updated_at, \(table).id) < (?, ?)", [time, .text(position.id.description)]
        )
    }

    private func warn(damaged: [String]) {
        guard !damaged.isEmpty else { return }
        warn(
            "\(damaged.count) stored note\(damaged.count == 1 ? "" : "s") could not be read and \(damaged.count == 1 ? "is" : "are") not listed (damaged id \(damaged.map { "“\($0)”" }.joined(separator: ", ")))"
        )
    }

    /// The ids of the owner's notes whose index rows meet `condition` (``indexCondition(_:)``'s,
    /// then the owner): from the index alone, its row numbers' index holding each note's key.
    static func indexedMatchIDs(_ condition: String) -> String {
        """
        SELECT notes.id
        FROM notes_search CROSS JOIN notes INDEXED BY notes_by_search_row ON notes.search_rowid = notes_search.rowid
        WHERE \(condition) AND notes.owner_id = ?
        """
    }

    /// One of the owner's notes (the owner, then its id), as ``noteColumns``.
    static let noteByID = noteColumns + " WHERE owner_id = ? AND id = ?"

    /// The owner's notes whose index rows meet `condition` (``indexCondition(_:)``'s, then the
    /// owner twice): read from the index's matches to their notes.
    static func indexedMatches(_ condition: String) -> String {
        """
        SELECT \(NotesTable.selected(of: "notes"))
        FROM notes_search CROSS JOIN notes INDEXED BY notes_by_search_row ON notes.search_rowid = notes_search.rowid
        WHERE \(condition) AND notes.owner_id = ?
            AND notes.change_sequence <= \(SearchIndex.progress(ofOwner: "?"))
        """
    }

    /// The owner's notes not indexed yet (a few, while writes go on), as ``noteColumns``.
    static let unindexedNotes =
        noteColumns + " INDEXED BY notes_by_change WHERE owner_id = ? AND change_sequence > \(SearchIndex.progressOfNotesOwner)"

    /// The condition on `notes_search` that keeps the rows holding every folded word: long words
    /// through the trigram index, shorter ones in each row's folded text.
    static func indexCondition(_ words: [String]) -> (String, [SQLValue]) {
        let long = words.filter { $0.unicodeScalars.count >= 3 }
        var conditions: [String] = []
        var bindings: [SQLValue] = []
        if !long.isEmpty {
            conditions.append("notes_search MATCH ?")
            // Each word as a quoted phrase (quotes doubled), so FTS5 syntax in it means nothing.
            bindings.append(.text(long.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }.joined(separator: " AND ")))
        }
        for word in words where word.unicodeScalars.count < 3 {
            conditions.append("instr(notes_search.text, ?) > 0")
            bindings.append(.text(word))
        }
        return (conditions.joined(separator: " AND "), bindings)
    }

    /// The notes table's statement that reads notes (`NotesTable`'s columns).
    static let noteColumns = "SELECT " + NotesTable.selected() + " FROM notes"

    /// The order notes are listed in: `Note.isListed(before:)`, in SQL.
    static let listOrder = " ORDER BY updated_at DESC, id DESC"

    /// `read`'s value of `row`; `nil` when its id is damaged, which is added to `damaged`.
    static func read<T>(_ row: Row, _ read: (Row) -> T?, damaged: inout [String]) -> T? {
        guard let value = read(row) else {
            damaged.append(String(row.text(0).prefix(40)))
            return nil
        }
        return value
    }

    /// The number the next change of an owner's notes takes (its `?` is the owner).
    static let nextChange = """
        (SELECT 1 + max((SELECT coalesce(max(change_sequence), 0) FROM notes WHERE owner_id = ?1),
                        (SELECT coalesce(max(change_sequence), 0) FROM note_removals WHERE owner_id = ?1)))
        """

    /// ``NotesTable``'s statements, numbered by ``nextChange``.
    static let storeNote = NotesTable.upsert(numbered: nextChange)
    static let editNote = NotesTable.edit(numbered: nextChange)

    /// Stores `note` whatever is stored; returns it with its version (`nil`: not written).
    func create(_ token: AccessToken, _ note: Note, _ access: Access = .waiting) throws(AppError) -> Note? {
        try writing(token, access) { db, owner throws(AppError) in
            let version = try storage { () throws(DatabaseError) in
                try db.query(Self.storeNote, NotesTable.upsertValues(note, of: owner)) { Int64($0.int(0)) }.first
            }
            searchIndex.catchUp(afterWrite: true)
            var stored = note
            stored.version = version
            // A create is based on nothing (it stores whatever is stored), so what it replaced
            // is never a base of this writer's later changes: no need to read it first.
            versions.withLock { $0.record(note.id, replaced: nil, wrote: version) }
            return stored
        }
    }

    /// Stores a new text of `note`, based on its version; `nil`: not written, as `access` allows.
    func update(_ token: AccessToken, _ note: Note, _ access: Access = .waiting) throws(AppError) -> Note? {
        try writing(token, access) { db, owner throws(AppError) in
            let existing = try storedVersion(of: note.id, for: owner, in: db)
            try refuseConflict(with: note, stored: existing, for: owner, in: db)
            guard existing != nil else { throw .notFound(.note, id: note.id.description) }
            let stored = try storage { () throws(DatabaseError) in
                try db.query(Self.editNote, NotesTable.editValues(note, of: owner), NotesTable.note).first
            }
            guard let stored, let updated = stored else { throw .notFound(.note, id: note.id.description) }
            searchIndex.catchUp(afterWrite: true)
            versions.withLock { $0.record(note.id, replaced: existing, wrote: updated.version) }
            return updated
        }
    }

    /// Deletes `note`, based on its version; one gone already is not an error.
    func delete(_ token: AccessToken, _ note: Note, _ access: Access = .waiting) throws(AppError) -> Void? {
        try writing(token, access) { db, owner throws(AppError) in
            let ownerID: SQLValue = .text(owner.description)
            guard let existing = try storedVersion(of: note.id, for: owner, in: db) else { return }
            try refuseConflict(with: note, stored: existing, for: owner, in: db)
            // The deletion's number is taken while the note's row still counts: taken after, it
            // could be the number of the note's own last change (when that was the owner's
            // latest), which a reader that saw that change would never ask about again.
            let change = try storage { () throws(DatabaseError) in
                try db.query("SELECT \(Self.nextChange)", [ownerID]) { Int64($0.int(0)) }.first ?? 1
            }
            // The note's row in the search index goes with it, in the same transaction: deleted
            // text leaves the index at once.
            let deleted = try storage { () throws(DatabaseError) in
                try db.query("DELETE FROM notes WHERE owner_id = ? AND id = ? RETURNING search_rowid", [ownerID, .text(note.id.description)]) {
                    $0.isNull(0) ? nil : $0.int(0)
                }
            }
            guard let searchRow = deleted.first else { return }
            try storage { () throws(DatabaseError) in
                try db.execute(
                    """
                    INSERT INTO note_removals (owner_id, id, change_sequence) VALUES (?1, ?2, ?3)
                    ON CONFLICT (owner_id, id) DO UPDATE SET change_sequence = excluded.change_sequence
                    """, [ownerID, .text(note.id.description), .integer(change)])
                // Records older than the window go (an index seek): a reader that far behind is
                // answered with the whole list instead (changes(_:since:)).
                try db.execute(
                    "DELETE FROM note_removals WHERE owner_id = ? AND change_sequence <= ?",
                    [ownerID, .integer(change - configuration.keptDeletionChanges)])
            }
            if let searchRow {
                try storage { () throws(DatabaseError) in try SearchIndex.remove(row: searchRow, in: db) }
            }
            versions.withLock { $0.record(note.id, replaced: existing, wrote: nil) }
        }
    }

    private func storedVersion(of id: Note.ID, for owner: User.ID, in db: Connection) throws(AppError) -> Int64? {
        try storage { () throws(DatabaseError) in
            try db.query("SELECT change_sequence FROM notes WHERE owner_id = ? AND id = ?", [.text(owner.description), .text(id.description)]) {
                Int64($0.int(0))
            }.first
        }
    }

    /// Throws the conflict a change of `note` meets when it may not replace version `stored`.
    private func refuseConflict(with note: Note, stored: Int64?, for owner: User.ID, in db: Connection) throws(AppError) {
        guard !versions.withLock({ $0.allows(note.id, base: note.version, stored: stored) }) else { return }
        let key: [SQLValue] = [.text(owner.description), .text(note.id.description)]
        let theirs = try storage { () throws(DatabaseError) in
            try db.query(Self.noteByID, key, NotesTable.note).first
        }
        if let theirs { throw NoteVersions.conflict(note.id, stored: theirs) }
        // No row: a deletion on record is a conflict; an id never the user's is not found.
        let deleted = try storage { () throws(DatabaseError) in
            try !db.query("SELECT 1 FROM note_removals WHERE owner_id = ? AND id = ?", key) { $0.int(0) }.isEmpty
        }
        throw deleted ? NoteVersions.conflict(note.id, stored: nil) : .notFound(.note, id: note.id.description)
    }

    /// What changed in the token owner's notes since `cursor`, in one transaction: only the rows
    /// numbered after it are read, and the cursor of now.
    func changes(_ token: AccessToken, since cursor: NotesCursor?) throws(AppError) -> NoteChanges {
        var damaged = 0
        let changes = try reading(token) { db, owner throws(AppError) in
            try storage { () throws(DatabaseError) -> NoteChanges in
                let ownerID: SQLValue = .text(owner.description)
                let now = NotesCursor(position: try db.query("SELECT \(Self.nextChange) - 1", [ownerID]) { $0.int(0) }.first.map(Int64.init) ?? 0)
                let total = try db.query(Self.ownersCount, [ownerID]) { $0.int(0) }.first ?? 0
                guard let cursor, cursor < now else { return NoteChanges(cursor: now, total: total) }
                let read = { (row: Row) -> Note? in
                    let note = NotesTable.note(row)
                    if note == nil { damaged += 1 }
                    return note
                }
                if cursor.position < now.position - configuration.keptDeletionChanges {
                    let all = try db.query(Self.noteColumns + " WHERE owner_id = ?" + Self.listOrder, [ownerID], read)
                    return NoteChanges(changed: all.compactMap { $0 }, cursor: now, replacesAll: true, total: total)
                }
                let after: [SQLValue] = [ownerID, .integer(cursor.position)]
                let changed = try db.query(
                    Self.noteColumns + " WHERE owner_id = ? AND change_sequence > ?" + Self.listOrder, after, read)
                let removed = try db.query("SELECT id FROM note_removals WHERE owner_id = ? AND change_sequence > ? ORDER BY id", after) { row in
                    try? Self.id(row, 0, "note_removals.id") as Note.ID
                }
                return NoteChanges(changed: changed.compactMap { $0 }, removed: removed.compactMap { $0 }, cursor: now, total: total)
            }
        }
        if damaged > 0 {
            warn("\(damaged) changed note\(damaged == 1 ? "" : "s") could not be read and \(damaged == 1 ? "is" : "are") left out (damaged id)")
        }
        return changes
    }

    /// Wakes the iterator each time another connection commits, read from `PRAGMA data_version`
    /// every `externalWriteInterval` without reading the file.
    func externalWrites() -> AsyncStream<Void> {
        let database = database
        let interval = configuration.externalWriteInterval
        return AsyncStream(bufferingPolicy: .bufferingNewest(1)) { continuation in
            let watch = ExternalWriteWatch(database: database, every: interval) { look in
                switch look {
                case .changed: continuation.yield()
                case .same: break
                case .closed: continuation.finish()
                }
            }
            continuation.onTermination = { _ in watch.stop() }
        }
    }
}

/// The timer behind `externalWrites` and its state between looks (touched on its queue only).
private final class ExternalWriteWatch: @unchecked Sendable {
    enum Look { case changed, same, closed }

    private let database: Database
    private let timer: any DispatchSourceTimer
    private let interval: Duration
    private var seen: Int64?
    /// Looks that failed in a row (the file could not be read), and until when looking rests.
    private var failures = 0
    private var restingUntil: ContinuousClock.Instant?
    private static let longestRest: Duration = .seconds(5)

    init(database: Database, every interval: Duration, _ onLook: @escaping @Sendable (Look) -> Void) {
        self.database = database
        self.interval = interval
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "appcore.live.external-writes", qos: .utility))
        seen = try? database.readIfAvailable { db throws(DatabaseError) in try db.withoutWaiting { () throws(DatabaseError) in try db.externalChangeCount() } }
        let nanoseconds = Int(interval.components.seconds) * 1_000_000_000 + Int(interval.components.attoseconds / 1_000_000_000)
        timer.schedule(deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(max(1_000_000, nanoseconds)))
        timer.setEventHandler { [self] in onLook(look()) }
        timer.resume()
    }

    func stop() {
        timer.cancel()
    }

    /// One look, which never waits: skipped when the connection is in use or locked.
    private func look() -> Look {
        let clock = ContinuousClock()
        if let restingUntil, clock.now < restingUntil { return .same }
        let read = Result { () throws(DatabaseError) in
            try database.readIfAvailable { db throws(DatabaseError) in try db.withoutWaiting { () throws(DatabaseError) in try db.externalChangeCount() } }
        }
        switch read {
        case .success(let looked?):
            failures = 0
            restingUntil = nil
            defer { seen = looked }
            return looked == seen ? .same : .changed
        case .success(nil):
            return .same
        case .failure(let error):
            if database.isClosed {
                timer.cancel()
                return .closed
            }
            // Busy is another connection's lock: the next look may find it free.
            if error.kind != .busy {
                failures += 1
                restingUntil = clock.now + min(interval * (1 << min(failures, 16)), Self.longestRest)
            }
            return .same
        }
    }
}
