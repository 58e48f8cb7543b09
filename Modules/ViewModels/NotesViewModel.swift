import Models
import Observation
import Reducers
import StateStore

/// The notes screen: the rows to list, the open note, the search, and what to say when there is
/// nothing or something went wrong.
public final class NotesViewModel: ViewModel {
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
        public var rows: [Row]
        /// How many rows are listed.
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

        /// The rows' maximum preview length, in characters.
        public static let previewLength = 60

        /// The snapshot of a notes state.
        public init(_ state: Notes.State) {
            rows = state.visibleItems.map { item in
                let title = item.note.title
                let rest = item.note.text.drop { $0.isWhitespace }.drop { !$0.isNewline }
                var reason: String?
                if case .failed(let error) = item.save { reason = error.message }
                return Row(
                    id: item.id,
                    title: title.isEmpty ? "New note" : Display.oneLine(title, limit: Self.previewLength),
                    preview: Display.oneLine(rest, limit: Self.previewLength),
                    updatedAt: Display.dateTime(item.note.updatedAt),
                    isSelected: item.id == state.selectedID,
                    isPending: item.isPending,
                    isUnsaved: item.isUnsaved,
                    unsavedReason: reason
                )
            }
            count = rows.count
            selectedID = state.selected?.id
            selectedText = state.selected?.note.text
            searchQuery = state.searchQuery
            isSearching = state.isSearching
            isLoading = state.list == .loading
            errorMessage = state.error?.message
            isEmpty = rows.isEmpty
            emptyMessage = if !rows.isEmpty { nil }
                else if state.searchResults != nil { "No notes match “\(state.searchQuery)”." }
                else if state.list == .loading { "Loading notes…" }
                else { "No notes yet. Add one to get started." }
        }
    }

    private let store: Store<Snapshot, Notes.Action>

    /// The view model of a store running the notes feature.
    public init(store: Store<Notes.State, Notes.Action>) {
        self.store = store.scope(deriving: { $0.notesSnapshot }, action: { $0 })
    }

    /// The view model of the app's notes.
    public convenience init(appStore: Store<AppFeature.State, AppFeature.Action>) {
        self.init(store: appStore.scope(deriving: { $0.notes }, action: AppFeature.Action.notes))
    }

    /// What the screen shows now.
    public var snapshot: Snapshot { store.state }

    /// The rows to list.
    public var rows: [Row] { snapshot.rows }
    /// How many rows are listed.
    public var count: Int { snapshot.count }
    /// The open note's id.
    public var selectedID: Note.ID? { snapshot.selectedID }
    /// The open note's text.
    public var selectedText: String? { snapshot.selectedText }
    /// The search typed.
    public var searchQuery: String { snapshot.searchQuery }
    /// Whether a search is waiting or in flight.
    public var isSearching: Bool { snapshot.isSearching }
    /// Whether the list is loading.
    public var isLoading: Bool { snapshot.isLoading }
    /// The error to show; `nil` when none.
    public var errorMessage: String? { snapshot.errorMessage }
    /// Whether there are no rows to list.
    public var isEmpty: Bool { snapshot.isEmpty }
    /// What to say instead of an empty list.
    public var emptyMessage: String? { snapshot.emptyMessage }

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
    /// Search (debounced); an empty query lists every note again.
    @discardableResult
    public func search(_ query: String) -> StoreTask { store.send(.searchQueryChanged(query)) }
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

extension Notes.State {
    /// What the notes screen shows for this state.
    public var notesSnapshot: NotesViewModel.Snapshot { NotesViewModel.Snapshot(self) }
}
