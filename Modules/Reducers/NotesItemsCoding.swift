import Models
import StateStore

extension Notes {
    /// The notes a state holds, written as `StoredByReference` writes notes.
    @propertyWrapper
    public struct ItemsByReference: Hashable, Sendable, Codable {
        /// The items.
        public var wrappedValue: IdentifiedArray<Item>

        /// Wraps `wrappedValue`.
        public init(wrappedValue: IdentifiedArray<Item>) {
            self.wrappedValue = wrappedValue
        }

        /// Writes each item, by reference or whole.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.unkeyedContainer()
            for item in wrappedValue {
                let byReference = item.save == .saved && item.isStored && !item.isDeleting && item.note.isWrittenByReference(to: encoder)
                try StoredElement.encode(item, naming: byReference ? item.note : nil, into: &container)
            }
        }

        /// Reads items written whole or by reference; a referenced note that is gone is left out.
        public init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            let stored = decoder.userInfo[.storedNotes] as? StoredNotes
            var items: [Item] = []
            var resolved = false
            while !container.isAtEnd {
                switch try container.decode(StoredElement<Item>.self) {
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
    }
}
