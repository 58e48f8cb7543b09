import Models
import StateStore

extension Notes {
    /// What a search found, as journals written before pages hold it.
    public struct SearchResults: Hashable, Sendable {
        /// Every match's id, in the client's order.
        public var ids: [Note.ID]
        /// The matches the list did not hold; the reducer lists them.
        public var unlisted: [Note]

        /// Results of `ids`, with `unlisted` the matches to list.
        public init(ids: [Note.ID], unlisted: [Note] = []) {
            self.ids = ids
            self.unlisted = unlisted
        }

        /// Every note of `found` as a match, in full those `listed` does not hold.
        public init(_ found: [Note], listed: IdentifiedArray<Item> = []) {
            ids = found.map(\.id)
            unlisted = found.filter { !listed.contains(id: $0.id) }
        }
    }
}

extension Notes.SearchResults: Codable {
    private enum CodingKeys: String, CodingKey {
        case ids, unlisted
    }

    /// Reads the results, or the list of notes an answer held before results were kept by id
    /// (journals written then).
    public init(from decoder: any Decoder) throws {
        guard let container = try? decoder.container(keyedBy: CodingKeys.self) else {
            self.init(try [Note](from: decoder))
            return
        }
        self.init(
            ids: try container.decode([Note.ID].self, forKey: .ids),
            unlisted: try container.decode([Note].self, forKey: .unlisted))
    }
}
