import Foundation

extension CodingUserInfoKey {
    /// Set to `true` by an encoder that writes stored notes by reference (their id and version)
    /// rather than whole: the action journal, since the notes table holds them already.
    public static let storedNotesByReference = key("appcore.storedNotesByReference")

    /// The ``StoredNotes`` a decoder reads referenced notes back from.
    public static let storedNotes = key("appcore.storedNotes")

    private static func key(_ name: String) -> CodingUserInfoKey {
        guard let key = CodingUserInfoKey(rawValue: name) else { preconditionFailure("\(name) is not a coding key") }
        return key
    }
}

/// Where a decoder finds the stored notes a document names by reference: the notes table.
public final class StoredNotes: Sendable {
    private let read: @Sendable (Note.ID, Int64?) -> Note?

    /// Stored notes read by `read`, given a note's id and the version the reference named (the
    /// note as stored now, whatever its version, or `nil` when it is gone).
    public init(read: @escaping @Sendable (Note.ID, Int64?) -> Note?) {
        self.read = read
    }

    /// The note `reference` names, as stored now; `nil` when it is gone.
    public func note(_ reference: NoteReference) -> Note? {
        read(reference.id, reference.version)
    }
}

/// What names a stored note in a document written by reference: its id and version.
public struct NoteReference: Codable, Hashable, Sendable {
    /// The note's id.
    public var id: Note.ID
    /// The version it had when written.
    public var version: Int64?

    /// The reference to `note`.
    public init(_ note: Note) {
        id = note.id
        version = note.version
    }
}

extension Note {
    /// Whether `encoder` writes this note by reference.
    public func isWrittenByReference(to encoder: any Encoder) -> Bool {
        version != nil && encoder.userInfo[.storedNotesByReference] as? Bool == true
    }
}

/// Stored notes, written by reference where the encoder asks for it and read back whole; a
/// reference whose note is gone is left out.
@propertyWrapper
public struct StoredByReference: Hashable, Sendable, Codable {
    /// The notes.
    public var wrappedValue: [Note]

    /// Wraps `wrappedValue`.
    public init(wrappedValue: [Note]) {
        self.wrappedValue = wrappedValue
    }

    /// Writes each stored note as `{"reference": {"id": …, "version": …}}` when the encoder asks
    /// for references, else whole.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for note in wrappedValue {
            try StoredElement.encode(note, naming: note.isWrittenByReference(to: encoder) ? note : nil, into: &container)
        }
    }

    /// Reads notes written whole or by reference.
    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        let stored = decoder.userInfo[.storedNotes] as? StoredNotes
        var notes: [Note] = []
        while !container.isAtEnd {
            switch try container.decode(StoredElement<Note>.self) {
            case .whole(let note): notes.append(note)
            case .reference(let reference): if let note = stored?.note(reference) { notes.append(note) }
            }
        }
        wrappedValue = notes
    }
}

/// One element of a list of stored notes as a document holds it: the value whole, or the
/// reference that names its note (`{"reference": {"id": …, "version": …}}`).
package enum StoredElement<Whole: Codable>: Decodable {
    case whole(Whole)
    case reference(NoteReference)

    private enum Keys: String, CodingKey {
        case reference
    }

    /// Writes `whole` into `container`, or a reference to `note` when there is one.
    package static func encode(_ whole: Whole, naming note: Note?, into container: inout any UnkeyedEncodingContainer) throws {
        if let note {
            var reference = container.nestedContainer(keyedBy: Keys.self)
            try reference.encode(NoteReference(note), forKey: .reference)
        } else {
            try container.encode(whole)
        }
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        if let reference = try container.decodeIfPresent(NoteReference.self, forKey: .reference) {
            self = .reference(reference)
        } else {
            self = .whole(try Whole(from: decoder))
        }
    }
}
