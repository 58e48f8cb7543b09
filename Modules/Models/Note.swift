import Foundation

/// A memo a user keeps: free text with the times it was created and last changed.
public struct Note: Hashable, Sendable, Codable, Identifiable {
    /// A note's identifier.
    public typealias ID = Identifier<Note>

    /// The note's identifier, chosen by the app when the note is created.
    public var id: ID
    /// The text, possibly several lines; may be empty while being written.
    public var text: String
    /// When the note was created.
    public var createdAt: Date
    /// When the text last changed.
    public var updatedAt: Date
    /// Which stored version of the note this is (it grows with each write); `nil` for a note never stored.
    public var version: Int64?

    /// Creates a note.
    public init(id: ID, text: String, createdAt: Date, updatedAt: Date? = nil, version: Int64? = nil) {
        self.id = id
        self.text = text
        self.createdAt = createdAt
        self.updatedAt = updatedAt ?? createdAt
        self.version = version
    }

    /// Whether `self` is listed before `other`.
    public func isListed(before other: Note) -> Bool {
        (updatedAt, id) > (other.updatedAt, other.id)
    }

    /// The first line that has text, trimmed; empty for a blank note.
    public var title: String {
        if let ascii = Self.asciiTitle(of: text) { return ascii }
        var rest = text[...]
        while let first = rest.firstIndex(where: { !Self.isBlank($0) }) {
            let line = rest[first...].prefix { !$0.isNewline }
            if let last = line.lastIndex(where: { !Self.isBlank($0) }) {
                return String(line[...last])
            }
            rest = rest[line.endIndex...].dropFirst()
        }
        return ""
    }

    /// ``title`` read byte by byte while the text is ASCII; `nil` at the first byte that is not.
    private static func asciiTitle(of text: String) -> String? {
        let bytes = text.utf8
        var start: String.Index?
        var end = bytes.startIndex
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            guard byte < 0x80 else { return nil }
            switch byte {
            case 0x0A...0x0D:
                if let start { return String(text[start..<end]) }
            case 0x20, 0x09:
                break
            default:
                if start == nil { start = index }
                end = bytes.index(after: index)
            }
            index = bytes.index(after: index)
        }
        return start.map { String(text[$0..<end]) } ?? ""
    }

    /// Whitespace within a line (no line breaks), without a Unicode property lookup for ASCII.
    private static func isBlank(_ character: Character) -> Bool {
        if let ascii = character.asciiValue { return ascii == 32 || ascii == 9 }
        return character.isWhitespace && !character.isNewline
    }

    /// Whether the note matches a search `query` as every notes client matches it (see
    /// ``SearchText``).
    public func matches(_ query: String) -> Bool {
        SearchText.text(text, holdsEvery: SearchText.words(of: query))
    }
}

/// The one definition of how a search matches a note, which every notes client follows: each word
/// of the query appears in the text, both folded (case, diacritics, width and normalization set
/// aside).
public enum SearchText {
    /// `text` as searches compare it.
    public static func folded(_ text: String) -> String {
        // ASCII (most notes) needs only lowercasing.
        if text.utf8.allSatisfy({ $0 < 0x80 && $0 != 0 }) { return text.lowercased() }
        let visible = text.utf8.contains(0) ? text.replacingOccurrences(of: "\u{0}", with: "\u{2400}") : text
        return visible.precomposedStringWithCompatibilityMapping
            .folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
            .precomposedStringWithCanonicalMapping
    }

    /// The words of `query`, folded; none for a blank query.
    public static func words(of query: String) -> [String] {
        query.split(whereSeparator: \.isWhitespace).map { folded(String($0)) }
    }

    /// Whether every one of `words` appears in `folded`, comparing the folded texts' bytes (the
    /// way SQLite compares them too).
    public static func matches(_ folded: String, words: [String]) -> Bool {
        words.allSatisfy { word in folded.utf8.contains(word.utf8) }
    }

    /// Whether `text`, folded, holds every one of `words` (folded already).
    public static func text(_ text: String, holdsEvery words: [String]) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.allSatisfy({ $0 < 0x80 && $0 != 0 }) else { return matches(folded(text), words: words) }
        return words.allSatisfy { word in
            let needle = Array(word.utf8)
            guard needle.count <= bytes.count else { return false }
            return (0...(bytes.count - needle.count)).contains { start in
                needle.indices.allSatisfy { offset in
                    let byte = bytes[start + offset]
                    // ASCII folds to lowercase only.
                    return (UInt8(ascii: "A")...UInt8(ascii: "Z") ~= byte ? byte + 32 : byte) == needle[offset]
                }
            }
        }
    }
}

/// Where a reader of the stored notes stands: the notes changed since are those it has not seen.
public struct NotesCursor: Hashable, Sendable, Codable, Comparable, CustomStringConvertible {
    /// The store's count of note changes the reader has seen.
    public var position: Int64

    /// A cursor at `position`.
    public init(position: Int64) {
        self.position = position
    }

    /// Whether `lhs` stands before `rhs`.
    public static func < (lhs: NotesCursor, rhs: NotesCursor) -> Bool {
        lhs.position < rhs.position
    }

    /// `@` and the position.
    public var description: String { "@\(position)" }
}

/// What changed in a user's stored notes since a ``NotesCursor``.
public struct NoteChanges: Hashable, Sendable, Codable {
    /// The notes created or updated, as they are now; with ``replacesAll``, every note.
    @StoredByReference public var changed: [Note]
    /// The ids of the notes deleted.
    public var removed: [Note.ID]
    /// Where the next question starts.
    public var cursor: NotesCursor
    /// Whether ``changed`` is the whole list, to replace the reader's (its cursor was older than
    /// the store's record of deletions).
    @Defaulted<DefaultFalse> public var replacesAll: Bool
    /// How many notes the user has now, when the store says (a reader that holds a page of them
    /// learns how many the others are); `nil` in journals written before.
    public var total: Int?

    /// A change, or with `replacesAll` the whole list; `total` the notes there are now.
    public init(changed: [Note] = [], removed: [Note.ID] = [], cursor: NotesCursor, replacesAll: Bool = false, total: Int? = nil) {
        self.changed = changed
        self.removed = removed
        self.cursor = cursor
        self.replacesAll = replacesAll
        self.total = total
    }

    /// Whether nothing changed.
    public var isEmpty: Bool { !replacesAll && changed.isEmpty && removed.isEmpty }
}

/// A place in the list's order (``Note/isListed(before:)``): a page of notes starts after it.
public struct NotesPosition: Hashable, Sendable, Codable {
    /// The update time of the note at this place.
    public var updatedAt: Date
    /// Its id, which orders notes updated at the same time.
    public var id: Note.ID

    /// The place of `note`.
    public init(_ note: Note) {
        self.init(updatedAt: note.updatedAt, id: note.id)
    }

    /// The place of a note updated at `updatedAt` with id `id`.
    public init(updatedAt: Date, id: Note.ID) {
        self.updatedAt = updatedAt
        self.id = id
    }

    /// Whether `note` is listed after this place (on a later page).
    public func comesBefore(_ note: Note) -> Bool {
        (updatedAt, id) > (note.updatedAt, note.id)
    }
}

/// A page of a user's notes, or of those a search finds, in list order, and how many there are
/// in all: what a screen shows, and what it costs to read, whatever the number of notes.
public struct NotePage: Hashable, Sendable, Codable {
    /// The notes of the page, most recently changed first.
    @StoredByReference public var notes: [Note]
    /// How many notes the list (or the search) holds in all, this page's and the others'.
    public var total: Int

    /// A page of `notes` out of `total`.
    public init(notes: [Note], total: Int) {
        self.notes = notes
        self.total = total
    }

    /// The page of `all` (in list order) that starts after `position`, at most `limit` notes.
    public init(of all: [Note], after position: NotesPosition?, limit: Int) {
        let start = position.map { position in all.firstIndex { position.comesBefore($0) } ?? all.endIndex } ?? all.startIndex
        self.init(notes: Array(all[start...].prefix(Swift.max(0, limit))), total: all.count)
    }
}
