import Foundation
import Models

/// A ``Note``'s columns in the notes table, each named once with how its field is written and
/// read back: every statement's column lists and the row's decoding derive from ``columns``.
enum NotesTable {
    struct Column: Sendable {
        let name: String
        /// Whether an edit writes it (an add writes every column).
        let isEdited: Bool
        let value: @Sendable (Note) -> SQLValue
        let read: @Sendable (inout Note, Row, Int32) -> Void
    }

    static let columns: [Column] = [
        Column(name: "text", isEdited: true, value: { .text($0.text) }, read: { $0.text = $1.text($2) }),
        Column(name: "created_at", isEdited: false, value: { .real($0.createdAt.timeIntervalSinceReferenceDate) }) {
            $0.createdAt = Date(timeIntervalSinceReferenceDate: $1.double($2))
        },
        Column(name: "updated_at", isEdited: true, value: { .real($0.updatedAt.timeIntervalSinceReferenceDate) }) {
            $0.updatedAt = Date(timeIntervalSinceReferenceDate: $1.double($2))
        },
    ]

    /// The columns a note is read from (each of `table` when given): id, every column, version.
    static func selected(of table: String? = nil) -> String {
        let prefix = table.map { $0 + "." } ?? ""
        return (["id"] + columns.map(\.name) + ["change_sequence"]).map { prefix + $0 }.joined(separator: ", ")
    }

    /// The note in a row read as ``selected(of:)`` lists; `nil` when its id is damaged.
    static func note(_ row: Row) -> Note? {
        guard let id = try? LiveBackend.id(row, 0, "notes.id") as Note.ID else { return nil }
        var note = Note(id: id, text: "", createdAt: .distantPast)
        for (offset, column) in columns.enumerated() { column.read(&note, row, Int32(offset + 1)) }
        note.version = row.int64(Int32(columns.count + 1))
        return note
    }

    /// Where a row read as ``selected(of:)`` lists comes in the list, as the table holds it (so
    /// also for a row whose id is damaged): its update time and id.
    static func listPosition(_ row: Row) -> (updatedAt: Double, id: String) {
        (row.double(updatedAtColumn), row.text(0))
    }

    private static let updatedAtColumn = Int32(1 + (columns.firstIndex { $0.name == "updated_at" } ?? -1))

    /// Stores a note whatever is stored (`?1` the owner, `?2` the id, then each column's value
    /// from `?3`), numbered `change`, an SQL expression; returns its version.
    static func upsert(numbered change: String) -> String {
        let names = columns.map(\.name)
        let values = names.indices.map { "?\($0 + 3)" }
        let edited = columns.filter(\.isEdited).map { "\($0.name) = excluded.\($0.name)" } + ["change_sequence = excluded.change_sequence"]
        return """
            INSERT INTO notes (owner_id, id, \(names.joined(separator: ", ")), change_sequence)
            VALUES (?1, ?2, \(values.joined(separator: ", ")), \(change))
            ON CONFLICT (owner_id, id) DO UPDATE SET \(edited.joined(separator: ", "))
            RETURNING change_sequence
            """
    }

    /// ``upsert(numbered:)``'s values for `note` of `owner`.
    static func upsertValues(_ note: Note, of owner: User.ID) -> [SQLValue] {
        [.text(owner.description), .text(note.id.description)] + columns.map { $0.value(note) }
    }

    /// Writes an edit of a note (`?1` the owner, `?2` the id, then each edited column's value
    /// from `?3`), numbered `change`; returns the note as stored, as ``selected(of:)`` lists.
    static func edit(numbered change: String) -> String {
        let edited = columns.filter(\.isEdited).enumerated().map { "\($1.name) = ?\($0 + 3)" } + ["change_sequence = \(change)"]
        return "UPDATE notes SET \(edited.joined(separator: ", ")) WHERE owner_id = ?1 AND id = ?2 RETURNING \(selected())"
    }

    /// ``edit(numbered:)``'s values for `note` of `owner`.
    static func editValues(_ note: Note, of owner: User.ID) -> [SQLValue] {
        [.text(owner.description), .text(note.id.description)] + columns.filter(\.isEdited).map { $0.value(note) }
    }
}
