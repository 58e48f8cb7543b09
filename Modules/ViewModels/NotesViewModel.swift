import Models
import Observation
import Reducers
import StateStore

/// The notes screen.
public final class NotesViewModel: FeatureViewModel {
    /// The signed-in user's notes in the app's store (none while signed out), and their screen.
    public static let feature = FeatureScreen<Notes.State, Notes.Action, Snapshot>(
        scope: { appStore in
            // An action that leaves the account alone is skipped unread.
            appStore.scope(deriving: { $0.notes }, reading: \.account, action: AppFeature.Action.notes)
        },
        snapshot: { Snapshot($0, after: $1) })

    /// One note in the list.
    public struct Row: Hashable, Sendable, Codable, Identifiable {
        /// The note's id.
        public var id: Note.ID
        /// The first line with text, or "New note" for a blank one.
        public var title: String
        /// The rest of the text on one line, cut short; empty when there is no more.
        public var preview: String
        /// When the note last changed.
        public var updatedAt: String
        /// Whether it is the open note.
        public var isSelected: Bool
        /// Whether a save or delete is in flight (show a spinner).
        public var isPending: Bool
        /// Whether the latest text failed to save (offer a retry).
        public var isUnsaved: Bool
        /// Why the save failed; `nil` unless unsaved.
        public var unsavedReason: String?
    }

    /// Everything the notes screen shows.
    public struct Snapshot: Hashable, Sendable, Codable {
        /// The rows to list: the search results while searching, otherwise every note.
        public var rows: Rows
        /// How many notes the list (or the search) holds in all.
        public var count: Int
        /// The open note's id; `nil` when none.
        public var selectedID: Note.ID?
        /// The open note's full text; `nil` when none.
        public var selectedText: String?
        /// The search typed; empty when not searching.
        public var searchQuery: String
        /// Whether a search is waiting or in flight.
        public var isSearching: Bool
        /// Whether the list is loading.
        public var isLoading: Bool
        /// The error to show; `nil` when none.
        public var errorMessage: String?
        /// Whether there are no rows to list.
        public var isEmpty: Bool
        /// What to say instead of an empty list; `nil` when there are rows.
        public var emptyMessage: String?
        /// How many of the rows a reader is sent (an `AppHost` `NotesUpdate`).
        public var rowLimit: Int

        /// The rows' maximum preview length, in characters.
        public static let previewLength = 60

        /// The snapshot of a notes state.
        public init(_ state: Notes.State) {
            self.init(state, after: nil)
        }

        /// What the screen shows for `state`, told faster from `before` where it can be.
        init(_ state: Notes.State, after before: Snapshot?) {
            rows = Rows(state, after: before?.rows)
            count = state.shownCount
            let selected = state.selected
            selectedID = selected?.id
            selectedText = selected?.note.text
            searchQuery = state.searchQuery
            isSearching = state.isSearching
            isLoading = state.list == .loading
            errorMessage = state.error?.message
            isEmpty = rows.isEmpty
            rowLimit = state.rowLimit
            emptyMessage =
                if !rows.isEmpty { nil } else if state.searchResults != nil { "No notes match “\(state.searchQuery)”." } else if state.list == .loading {
                    "Loading notes…"
                } else { "No notes yet. Add one to get started." }
        }
    }

    /// The rows of the list, in order: a collection that builds each ``Row`` when it is read.
    public struct Rows: RandomAccessCollection, Hashable, Sendable, Codable {
        enum Storage: Sendable {
            case list(IdentifiedArray<Notes.Item>, selectedID: Note.ID?)
            /// The notes a search found, read from the list as their rows are.
            case found(Found)
            /// Rows built already (decoded, or made by hand).
            case built([Row])
        }

        /// The notes a search found: `ids`, those of `results` that `items` lists, in its order.
        // A class: held inline in `Storage`, these fields made debug builds (Swift 6.3.1) destroy
        // a `Storage` that was never made, in `init(_:)`.
        final class Found: Sendable {
            let ids: [Note.ID]
            /// The position of each of `ids` (the first, were one there twice): rows are looked
            /// up and compared by id after every change, and a search can find thousands.
            let positions: [Note.ID: Int]
            let results: [Note.ID]
            let items: IdentifiedArray<Notes.Item>
            let selectedID: Note.ID?

            /// The results `items` lists, told from `earlier`'s where it can be: a change then
            /// costs its own notes, not a look at every result.
            init(results: [Note.ID], items: IdentifiedArray<Notes.Item>, selectedID: Note.ID?, after earlier: Found?) {
                if let earlier, let listed = Self.listed(results, in: items, toldFrom: earlier) {
                    (ids, positions) = listed
                } else {
                    ids = results.allSatisfy { items.contains(id: $0) } ? results : results.filter { items.contains(id: $0) }
                    positions = Self.positions(of: ids)
                }
                self.results = results
                self.items = items
                self.selectedID = selectedID
            }

            func lists(_ id: Note.ID) -> Bool { positions[id] != nil }

            private static func positions(of ids: [Note.ID]) -> [Note.ID: Int] {
                Dictionary(ids.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
            }

            /// Which of `results` `items` lists, from `earlier`, which holds the same results:
            /// only a note that joined or left the list since can change it.
            private static func listed(
                _ results: [Note.ID], in items: IdentifiedArray<Notes.Item>, toldFrom earlier: Found
            ) -> (ids: [Note.ID], positions: [Note.ID: Int])? {
                guard earlier.results == results else { return nil }
                if items.version == earlier.items.version { return (earlier.ids, earlier.positions) }
                guard let changed = items.changedIDs(since: earlier.items.version) ?? earlier.items.changedIDs(since: items.version) else {
                    return nil
                }
                var left: Set<Note.ID> = []
                for id in changed {
                    let isListed = items.contains(id: id)
                    guard isListed != earlier.items.contains(id: id) else { continue }
                    if isListed {
                        // A note that joined is a result only if some result was not listed.
                        guard earlier.ids.count == results.count else { return nil }
                    } else if earlier.lists(id) {
                        left.insert(id)
                    }
                }
                guard !left.isEmpty else { return (earlier.ids, earlier.positions) }
                let ids = earlier.ids.filter { !left.contains($0) }
                return (ids, positions(of: ids))
            }
        }

        let storage: Storage

        /// Rows that were built already.
        public init(_ rows: [Row]) {
            storage = .built(rows)
        }

        /// The rows of `state`, the listed results of a search told from `before`'s where it can be.
        init(_ state: Notes.State, after before: Rows?) {
            if let results = state.searchResults {
                var earlier: Found?
                if case .found(let found)? = before?.storage { earlier = found }
                storage = .found(Found(results: results, items: state.items, selectedID: state.selectedID, after: earlier))
            } else {
                storage = .list(state.items, selectedID: state.selectedID)
            }
        }

        /// The note behind row `id` when these rows were made; `nil` when none or built already.
        package func note(_ id: Note.ID) -> Note? {
            switch storage {
            case .list(let items, _): items[id: id]?.note
            case .found(let found): found.lists(id) ? found.items[id: id]?.note : nil
            case .built: nil
            }
        }

        /// The first position.
        public var startIndex: Int { 0 }

        /// The position past the last row.
        public var endIndex: Int {
            switch storage {
            case .list(let items, _): items.count
            case .found(let found): found.ids.count
            case .built(let rows): rows.count
            }
        }

        /// The row at `position`.
        public subscript(position: Int) -> Row {
            switch storage {
            case .list(let items, let selectedID): Row(items[position], selectedID: selectedID)
            case .found(let found): Row(Self.item(found.ids[position], in: found.items), selectedID: found.selectedID)
            case .built(let rows): rows[position]
            }
        }

        /// Every note of the list these rows show, when they show the list (not a search, not
        /// rows built elsewhere): for front ends that index the notes as the rows change.
        package var listedNotes: IdentifiedArray<Notes.Item>? {
            if case .list(let items, _) = storage { return items }
            return nil
        }

        /// The id of the note at `position`, told without building its row.
        public func id(at position: Int) -> Note.ID {
            switch storage {
            case .list(let items, _): items[position].id
            case .found(let found): found.ids[position]
            case .built(let rows): rows[position].id
            }
        }

        /// The position of the row of note `id`, if it is listed.
        public func index(id: Note.ID) -> Int? {
            switch storage {
            case .list(let items, _): items.index(id: id)
            case .found(let found): found.positions[id]
            case .built(let rows): rows.firstIndex { $0.id == id }
            }
        }

        /// The row of note `id`, if it is listed.
        public subscript(id id: Note.ID) -> Row? {
            index(id: id).map { self[$0] }
        }

        /// Visits the rows in order without looking each note up by position.
        public struct Iterator: IteratorProtocol {
            let rows: Rows
            var position = 0
            var list: IdentifiedArray<Notes.Item>.Iterator?
            var selectedID: Note.ID?

            init(_ rows: Rows) {
                self.rows = rows
                if case .list(let items, let selectedID) = rows.storage {
                    list = items.makeIterator()
                    self.selectedID = selectedID
                }
            }

            /// The next row.
            public mutating func next() -> Row? {
                if list != nil { return list?.next().map { Row($0, selectedID: selectedID) } }
                guard position < rows.endIndex else { return nil }
                defer { position += 1 }
                return rows[position]
            }
        }

        /// An iterator over the rows.
        public func makeIterator() -> Iterator { Iterator(self) }

        /// The ids of the rows added, removed or changed since `earlier`, in no particular order.
        public func changedIDs(since earlier: Rows) -> [Note.ID]? {
            var changed: [Note.ID]
            let selection: (Note.ID?, Note.ID?)
            switch (earlier.storage, storage) {
            case (.list(let old, let oldSelection), .list(let new, let newSelection)):
                guard let ids = new.changedIDs(since: old.version) else { return nil }
                changed = ids
                selection = (oldSelection, newSelection)
            case (.found(let old), .found(let new)):
                guard old.ids == new.ids else { return nil }
                changed = Self.changedItems(among: new, from: old.items)
                selection = (old.selectedID, new.selectedID)
            default:
                return nil
            }
            if selection.0 != selection.1 { changed += [selection.0, selection.1].compactMap { $0 } }
            var seen = Set<Note.ID>()
            return changed.filter { seen.insert($0).inserted }
        }

        /// Whether both list the same rows.
        public static func == (lhs: Rows, rhs: Rows) -> Bool {
            // Matched one side at a time: a switch over both storages copies them, and this runs
            // after every command a front end performs.
            if case .list(let left, let leftSelection) = lhs.storage, case .list(let right, let rightSelection) = rhs.storage {
                guard left.count == right.count,
                    selectionShowsTheSame(leftSelection, rightSelection, isLeftListed: { left.contains(id: $0) }, isRightListed: { right.contains(id: $0) })
                else { return false }
                // Versions of one list share what did not change, which is not compared again: a
                // command that left the notes as they were costs nothing here however many they are.
                return left.elementsEqual(right) { showTheSame($0, leftSelection, $1, rightSelection) }
            }
            if case .found(let left) = lhs.storage, case .found(let right) = rhs.storage {
                guard left.ids == right.ids, selectionShowsTheSame(left.selectedID, right.selectedID, isLeftListed: left.lists, isRightListed: right.lists)
                else { return false }
                return changedItems(among: right, from: left.items).allSatisfy {
                    showTheSame(item($0, in: left.items), left.selectedID, item($0, in: right.items), right.selectedID)
                }
            }
            return lhs.count == rhs.count && lhs.elementsEqual(rhs)
        }

        /// The listed item of `id`, which the rows' ids hold only when it is listed.
        private static func item(_ id: Note.ID, in items: IdentifiedArray<Notes.Item>) -> Notes.Item {
            guard let item = items[id: id] else { preconditionFailure("the rows of a search hold the ids of listed notes only") }
            return item
        }

        /// Which of `found`'s rows are items that differ between `old` and `found`'s items, told
        /// from the list's change log when it reaches back, else item by item.
        private static func changedItems(among found: Found, from old: IdentifiedArray<Notes.Item>) -> [Note.ID] {
            let new = found.items
            if old.version == new.version { return [] }
            if let changed = new.changedIDs(since: old.version) ?? old.changedIDs(since: new.version) {
                return changed.filter(found.lists)
            }
            return found.ids.filter { item($0, in: old) != item($0, in: new) }
        }

        /// Whether a selection that moved shows on no row of either side.
        private static func selectionShowsTheSame(
            _ leftSelection: Note.ID?, _ rightSelection: Note.ID?, isLeftListed: (Note.ID) -> Bool, isRightListed: (Note.ID) -> Bool
        ) -> Bool {
            guard leftSelection != rightSelection else { return true }
            if let leftSelection, isLeftListed(leftSelection) { return false }
            if let rightSelection, isRightListed(rightSelection) { return false }
            return true
        }

        /// Whether items `old` and `new` show the same row, the items compared before any row is
        /// built (building a row formats its title, preview and date).
        private static func showTheSame(_ old: Notes.Item, _ oldSelection: Note.ID?, _ new: Notes.Item, _ newSelection: Note.ID?) -> Bool {
            if Row.showsTheSame(old, new) { return true }
            if Row.showsOtherwise(old, new) { return false }
            return Row(old, selectedID: oldSelection) == Row(new, selectedID: newSelection)
        }

        /// Hashes the rows in order.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(count)
            for row in self { hasher.combine(row) }
        }

        /// Encodes the rows as an array.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.unkeyedContainer()
            for row in self { try container.encode(row) }
        }

        /// Decodes an array of rows.
        public init(from decoder: any Decoder) throws {
            storage = .built(try [Row](from: decoder))
        }
    }

    /// The store the view model reads, scoped to its snapshot.
    public let store: Store<Snapshot, Notes.Action>

    /// The view model reading `snapshots`, a store scoped to the screen's snapshot.
    public init(snapshots: Store<Snapshot, Notes.Action>) { store = snapshots }

    /// Add a note (it opens).
    @discardableResult
    public func add(_ text: String) -> StoreTask { store.send(.addTapped(text)) }
    /// Change a note's text.
    @discardableResult
    public func edit(_ id: Note.ID, text: String) -> StoreTask { store.send(.edited(id, text)) }
    /// Delete a note.
    @discardableResult
    public func delete(_ id: Note.ID) -> StoreTask { store.send(.deleteTapped(id)) }
    /// Open a note, or close the open one with `nil`.
    @discardableResult
    public func select(_ id: Note.ID?) -> StoreTask { store.send(.selected(id)) }
    /// Search as the query is typed: once typing pauses; an empty query lists every note again.
    @discardableResult
    public func search(_ query: String) -> StoreTask { store.send(.searchQueryChanged(query)) }
    /// Search at once for a query submitted (the return key, a search button).
    @discardableResult
    public func submitSearch(_ query: String) -> StoreTask { store.send(.searchSubmitted(query)) }
    /// Save again a note whose save failed.
    @discardableResult
    public func retrySave(_ id: Note.ID) -> StoreTask { store.send(.retrySaveTapped(id)) }
    /// Load the list again.
    @discardableResult
    public func reload() -> StoreTask { store.send(.listRequested) }
    /// Dismiss the error shown.
    @discardableResult
    public func dismissError() -> StoreTask { store.send(.errorDismissed) }
}

extension NotesViewModel.Row {
    init(_ item: Notes.Item, selectedID: Note.ID?) {
        let title = item.note.title
        let rest = Display.afterFirstLine(item.note.text)
        var reason: String?
        if case .failed(let error) = item.save { reason = error.message }
        self.init(
            id: item.id,
            title: title.isEmpty ? "New note" : Display.oneLine(title, limit: NotesViewModel.Snapshot.previewLength),
            preview: Display.oneLine(rest, limit: NotesViewModel.Snapshot.previewLength),
            updatedAt: Display.dateTime(item.note.updatedAt),
            isSelected: item.id == selectedID,
            isPending: item.isPending,
            isUnsaved: item.isUnsaved,
            unsavedReason: reason
        )
    }

    /// Whether two items certainly give the same row (selection aside), without building either.
    static func showsTheSame(_ old: Notes.Item, _ new: Notes.Item) -> Bool {
        old == new
    }

    /// Whether two items certainly give different rows, told without building either.
    static func showsOtherwise(_ old: Notes.Item, _ new: Notes.Item) -> Bool {
        old.id != new.id || old.isPending != new.isPending || old.isUnsaved != new.isUnsaved
    }
}

extension Notes.State {
    /// What the notes screen shows for this state.
    public var notesSnapshot: NotesViewModel.Snapshot { NotesViewModel.Snapshot(self) }
}

extension NotesViewModel: HostedViewModel {}
