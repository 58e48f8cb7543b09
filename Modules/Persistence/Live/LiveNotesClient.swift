import AppEnvironment
import Foundation
import Models

/// The notes client's rules: the signed-in user's notes, searched with FTS5 (or LIKE).
extension LiveBackend {

    func notes(_ token: AccessToken, matching query: String = "") throws(AppError) -> [Note] {
        let words = query.split(whereSeparator: \.isWhitespace).map(String.init)
        if words.contains(where: { $0.count >= 3 }) { try refreshSearchIndex() }
        var damaged: [String] = []
        let notes = try reading(token) { db, owner throws(AppError) in
            let (conditions, bindings) = try storage { () throws(DatabaseError) in
                try Self.searchConditions(words, fullText: db.tableExists("notes_search"))
            }
            return try storage { () throws(DatabaseError) in
                try db.query("SELECT id, text, created_at, updated_at FROM notes WHERE owner_id = ?\(conditions) ORDER BY updated_at DESC, id DESC",
                             [.text(owner.description)] + bindings) { row -> Note? in
                    // A damaged row is left out and named; the other notes are still listed.
                    guard let id = try? Self.id(row, 0, "notes.id") as Note.ID else {
                        damaged.append(String(row.text(0).prefix(40)))
                        return nil
                    }
                    return Note(id: id, text: row.text(1),
                                createdAt: Date(timeIntervalSinceReferenceDate: row.double(2)),
                                updatedAt: Date(timeIntervalSinceReferenceDate: row.double(3)))
                }
            }
        }
        if !damaged.isEmpty {
            warn("\(damaged.count) stored note\(damaged.count == 1 ? "" : "s") could not be read and \(damaged.count == 1 ? "is" : "are") not listed (damaged id \(damaged.map { "“\($0)”" }.joined(separator: ", ")))")
        }
        return notes.compactMap { $0 }
    }

    func create(_ token: AccessToken, _ note: Note) throws(AppError) -> Note {
        try writing(token) { db, owner throws(AppError) in
            try storage { () throws(DatabaseError) in
                try db.execute("""
                    INSERT INTO notes (owner_id, id, text, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (owner_id, id) DO UPDATE SET text = excluded.text, updated_at = excluded.updated_at, search_indexed = 0
                    """, [.text(owner.description), .text(note.id.description), .text(note.text),
                          .real(note.createdAt.timeIntervalSinceReferenceDate), .real(note.updatedAt.timeIntervalSinceReferenceDate)])
            }
            return note
        }
    }

    func update(_ token: AccessToken, _ note: Note) throws(AppError) -> Note {
        try writing(token) { db, owner throws(AppError) in
            let created = try storage { () throws(DatabaseError) in
                try db.query("UPDATE notes SET text = ?, updated_at = ?, search_indexed = 0 WHERE owner_id = ? AND id = ? RETURNING created_at",
                             [.text(note.text), .real(note.updatedAt.timeIntervalSinceReferenceDate), .text(owner.description), .text(note.id.description)]) { $0.double(0) }.first
            }
            guard let created else { throw .notFound(.note, id: note.id.description) }
            var stored = note
            stored.createdAt = Date(timeIntervalSinceReferenceDate: created)
            return stored
        }
    }

    func delete(_ token: AccessToken, _ id: Note.ID) throws(AppError) {
        try writing(token) { db, owner throws(AppError) in
            try storage { () throws(DatabaseError) in
                try db.execute("DELETE FROM notes WHERE owner_id = ? AND id = ?", [.text(owner.description), .text(id.description)])
            }
            guard db.changes == 1 else { throw .notFound(.note, id: id.description) }
        }
    }

    /// Brings the full-text index up to date with the notes written since the last search, in one
    /// transaction (one index segment, however many notes changed). A note keeps its index row
    /// number (`search_rowid`) for life; a new note gets the next free one.
    func refreshSearchIndex() throws(AppError) {
        try storage { () throws(DatabaseError) in
            try database.write { db throws(DatabaseError) in
                guard try db.tableExists("notes_search") else { return }
                try db.execute("DELETE FROM notes_search WHERE rowid IN (SELECT search_rowid FROM notes WHERE search_indexed = 0)")
                try db.execute("""
                    UPDATE notes SET search_rowid = numbered.search_rowid FROM (
                        SELECT owner_id, id, (SELECT coalesce(max(rowid), 0) FROM notes_search) + row_number() OVER () AS search_rowid
                        FROM notes WHERE search_indexed = 0 AND search_rowid IS NULL
                    ) AS numbered
                    WHERE notes.owner_id = numbered.owner_id AND notes.id = numbered.id
                    """)
                try db.execute("INSERT INTO notes_search (rowid, text) SELECT search_rowid, text FROM notes WHERE search_indexed = 0")
                try db.execute("UPDATE notes SET search_indexed = 1 WHERE search_indexed = 0")
            }
        }
    }

    /// The SQL (with `?` only) and values that keep the notes containing every word: words of three
    /// characters or more through the trigram full-text index when there is one, the others (or
    /// all, without the index) through an escaped LIKE.
    static func searchConditions(_ words: [String], fullText: Bool) -> (String, [SQLValue]) {
        let indexed = fullText ? words.filter { $0.count >= 3 } : []
        let scanned = fullText ? words.filter { $0.count < 3 } : words
        var sql = ""
        var bindings: [SQLValue] = []
        if !indexed.isEmpty {
            sql += " AND search_rowid IN (SELECT rowid FROM notes_search WHERE notes_search MATCH ?)"
            // Each word as a quoted phrase (quotes doubled), so FTS5 syntax in it means nothing.
            bindings.append(.text(indexed.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }.joined(separator: " AND ")))
        }
        for word in scanned {
            sql += " AND text LIKE ? ESCAPE '\\'"
            bindings.append(.text(likePattern(word)))
        }
        return (sql, bindings)
    }

    /// `text` as a LIKE pattern matching it anywhere, with `\`, `%` and `_` taken literally.
    static func likePattern(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if character == "\\" || character == "%" || character == "_" { escaped.append("\\") }
            escaped.append(character)
        }
        return "%" + escaped + "%"
    }
}
