import Models
import StateStore

extension Notes {
    /// The notes a state holds, written as `StoredByReference` writes notes: a note stored
    /// as it is shown (saved, not being deleted) by reference where the encoder asks for it, the
    /// others whole (their text is the session's own: typed and not stored yet, or failed).
    @propertyWrapper
    public struct ItemsByReference: Hashable, Sendable, Codable {
        /// The items.
        public var wrappedValue: IdentifiedArray<Item>

        /// Wraps `wrappedValue`.
        public init(wrappedValue: IdentifiedArray<Item>) {
            self.wrappedValue = wrappedValue
        }

        private enum Keys: String, CodingKey {
            case reference
        }

        /// Writes each item, by reference or whole.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.unkeyedContainer()
            for item in wrappedValue {
                if item.save == .saved, item.isStored, !item.isDeleting, item.note.isWrittenByReference(to: encoder) {
                    var reference = container.nestedContainer(keyedBy: Keys.self)
                    try reference.encode(NoteReference(item.note), forKey: .reference)
                } else {
                    try container.encode(item)
                }
            }
        }

        /// Reads items written whole or by reference; a referenced note that is gone is left out.
        public init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            let stored = decoder.userInfo[.storedNotes] as? StoredNotes
            var items: [Item] = []
            var resolved = false
            while !container.isAtEnd {
                switch try container.decode(Element.self) {
                case .whole(let item): items.append(item)
                case .reference(let reference):
                    guard let note = stored?.note(reference) else { continue }
                    items.append(Item(note: note))
                    resolved = true
                }
            }
            // In the list's order: a note read back as stored now may have moved.
            wrappedValue = IdentifiedArray(uniqueElements: resolved ? items.sorted(by: State.isListed) : items)
        }

        /// One element as written.
        private enum Element: Decodable {
            case whole(Item)
            case reference(NoteReference)

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: Keys.self)
                if let reference = try container.decodeIfPresent(NoteReference.self, forKey: .reference) {
                    self = .reference(reference)
                } else {
                    self = .whole(try Item(from: decoder))
                }
            }
        }
    }
}
