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

    /// Creates a note.
    public init(id: ID, text: String, createdAt: Date, updatedAt: Date? = nil) {
        self.id = id
        self.text = text
        self.createdAt = createdAt
        self.updatedAt = updatedAt ?? createdAt
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

    /// ``title`` read byte by byte while the text is ASCII; `nil` when a byte that is not
    /// comes first (the caller then reads characters).
    private static func asciiTitle(of text: String) -> String? {
        if let read = text.utf8.withContiguousStorageIfAvailable({ asciiTitle(in: $0) }) { return read }
        return Array(text.utf8).withUnsafeBufferPointer { asciiTitle(in: $0) }
    }

    private static func asciiTitle(in bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var start: Int?
        var end = 0
        for index in bytes.indices {
            let byte = bytes[index]
            guard byte < 0x80 else { return nil }
            switch byte {
            case 0x0A...0x0D:
                if let start { return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self) }
            case 0x20, 0x09:
                break
            default:
                if start == nil { start = index }
                end = index + 1
            }
        }
        return start.map { String(decoding: UnsafeBufferPointer(rebasing: bytes[$0..<end]), as: UTF8.self) } ?? ""
    }

    /// Whitespace within a line (no line breaks), without a Unicode property lookup for ASCII.
    private static func isBlank(_ character: Character) -> Bool {
        if let ascii = character.asciiValue { return ascii == 32 || ascii == 9 }
        return character.isWhitespace && !character.isNewline
    }

    /// Whether the note matches a search `query`: every word of it appears in the text,
    /// ignoring case and diacritics. An empty query matches every note.
    public func matches(_ query: String) -> Bool {
        query.split(whereSeparator: \.isWhitespace).allSatisfy { word in
            text.range(of: word, options: [.caseInsensitive, .diacriticInsensitive]) != nil
        }
    }
}
