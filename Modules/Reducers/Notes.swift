import AppEnvironment
import Foundation
import Models
import StateStore

/// The user's notes.
public struct Notes: Reducer {
    /// How long the query must stay unchanged before it is searched.
    public static let searchDebounce: Duration = .milliseconds(300)
    /// How many rows a page of the list holds.
    public static let pageSize = 50

    /// A note and how far it is from being stored.
    public struct Item: Hashable, Sendable, Codable, Identifiable {
        /// The note as the user sees it (local changes included).
        public var note: Note
        /// Whether the latest text is stored.
        public var save: SaveStatus
        /// Whether the note was ever stored (a retry then updates instead of creating).
        public var isStored: Bool
        /// Bumped by every local change; a save's response names the revision it stored.
        public var revision: Int
        /// Whether a delete is in flight.
        public var isDeleting: Bool

        /// A note in the list.
        public init(note: Note, save: SaveStatus = .saved, isStored: Bool = true, revision: Int = 0, isDeleting: Bool = false) {
            self.note = note
            self.save = save
            self.isStored = isStored
            self.revision = revision
            self.isDeleting = isDeleting
        }

        /// The note's id.
        public var id: Note.ID { note.id }
        /// Whether a save or a delete is in flight.
        public var isPending: Bool { save == .saving || isDeleting }
        /// Whether the latest text failed to save.
        public var isUnsaved: Bool {
            if case .failed = save { return true }
            return false
        }

        /// Whether the latest text was refused because another writer changed or deleted the
        /// note since the version it was based on.
        public var isInConflict: Bool {
            if case .failed(.conflict) = save { return true }
            return false
        }

        /// Takes `conflict` as stored: a retry is based on the other writer's version.
        mutating func settle(_ conflict: NoteConflict) {
            switch conflict {
            case .changed(let theirs):
                note.version = theirs.version
                isStored = true
            case .deleted:
                note.version = nil
                isStored = false
            }
        }

        /// Shows `conflict`, what the other writer did last, when the note is in conflict.
        mutating func updateConflict(_ conflict: NoteConflict) {
            guard isInConflict, !isPending else { return }
            settle(conflict)
            save = .failed(.conflict(conflict))
        }
    }

    /// Where a note's latest text stands.
    public enum SaveStatus: Hashable, Sendable, Codable {
        /// Stored.
        case saved
        /// Being stored.
        case saving
        /// Storing failed; the text is kept and can be saved again.
        case failed(AppError)
    }

    /// Where the list stands.
    public enum ListStatus: Hashable, Sendable, Codable {
        /// Never asked for.
        case notLoaded
        /// Being fetched.
        case loading
        /// Fetched.
        case loaded
        /// Fetching failed.
        case failed(AppError)
    }

    /// The notes screen.
    public struct State: Hashable, Sendable, Codable {
        /// The notes the session holds, most recently updated first.
        @ItemsByReference public var items: IdentifiedArray<Item>
        /// The note open for editing.
        public var selectedID: Note.ID?
        /// The search typed; empty when not searching.
        public var searchQuery: String
        /// The ids the last search found, in its order; `nil` when not searching.
        public var searchResults: [Note.ID]?
        /// Whether a search is waiting or in flight.
        public var isSearching: Bool
        /// Where the list stands.
        public var list: ListStatus
        /// The last error to show (loading, searching, deleting), until dismissed.
        public var error: AppError?
        /// Where the list stands in the stored notes' changes.
        public var changeCursor: NotesCursor?
        /// How many of the rows a reader of the screen is sent (the rest on request).
        @Defaulted<FirstPage> public var rowLimit = Notes.pageSize
        /// The last stored note of the list read so far, when more may follow it.
        public var listEnd: NotesPosition?
        /// How many notes the list has in all, read or not; `nil`: as many as are held.
        public var listTotal: Int?
        /// The last match of the search read so far, when more may follow it.
        public var searchEnd: NotesPosition?
        /// How many notes the search found in all, read or not; `nil`: as many as are held.
        public var searchTotal: Int?

        /// A notes state; empty and not loaded by default.
        public init(
            items: IdentifiedArray<Item> = [],
            selectedID: Note.ID? = nil,
            searchQuery: String = "",
            searchResults: [Note.ID]? = nil,
            isSearching: Bool = false,
            list: ListStatus = .notLoaded,
            error: AppError? = nil,
            changeCursor: NotesCursor? = nil
        ) {
            self.items = items
            self.selectedID = selectedID
            self.searchQuery = searchQuery
            self.searchResults = searchResults
            self.isSearching = isSearching
            self.list = list
            self.error = error
            self.changeCursor = changeCursor
        }

        /// The selected note, if any.
        public var selected: Item? { selectedID.flatMap { items[id: $0] } }

        /// The notes to show.
        public var visibleItems: [Item] {
            guard let searchResults else { return items.elements }
            return searchResults.compactMap { items[id: $0] }
        }

        /// How many notes the list (or the search) has in all, those not read yet included, as the
        /// store last counted them; `nil` when every one is held (journals written before pages).
        public var total: Int? {
            searchResults == nil ? listTotal : searchTotal
        }

        /// How many notes what is shown has in all: ``visibleItems`` and those not read yet.
        public var shownCount: Int {
            max(total ?? 0, visibleItems.count)
        }

        /// Where the next page of what is shown starts; `nil` when every note of it is held.
        var end: NotesPosition? { searchResults == nil ? listEnd : searchEnd }

        /// Whether `note`, stored, belongs to the part of the list read so far.
        func listReaches(_ note: Note) -> Bool {
            listEnd.map { !$0.comesBefore(note) } ?? true
        }

        /// How many held notes were never stored: the store does not count them.
        var unstoredCount: Int { items.lazy.filter { !$0.isStored }.count }
    }

    /// What happens on the notes screen.
    public enum Action: Hashable, Sendable, Codable {
        /// Fetch the list's first page.
        case listRequested
        /// The client answered the list request with every note (journals written before pages).
        case listResponse(Outcome<[Note]>)
        /// Add a note with this text; it is selected.
        case addTapped(String)
        /// A new note, with the id and date chosen for it, enters the list and is saved.
        case inserted(Note)
        /// The user changed the text of a note.
        case edited(Note.ID, String, basedOn: Int64? = nil)
        /// A note's text changed at `at`.
        case changed(Note.ID, String, at: Date, basedOn: Int64? = nil)
        /// Delete a note; `basedOn` as for ``edited(_:_:basedOn:)``.
        case deleteTapped(Note.ID, basedOn: Int64? = nil)
        /// Open a note, or close the open one with `nil`.
        case selected(Note.ID?)
        /// The search field changed (a keystroke): searched once typing pauses.
        case searchQueryChanged(String)
        /// A search was submitted: searched at once.
        case searchSubmitted(String)
        /// The client answered the search for `query` (journals written before pages).
        case searchResponse(query: String, Outcome<SearchResults>)
        /// The client answered with a page of the list (`query` empty) or of the search for
        /// `query`: the first (`after` is `nil`), or the one after `after`.
        case pageResponse(query: String, after: NotesPosition?, Outcome<NotePage>)
        /// A reader of the list asked for its next page of rows.
        case moreRowsRequested
        /// Save again a note whose save failed.
        case retrySaveTapped(Note.ID)
        /// The client answered the save of `revision` of a note.
        case saveResponse(Note.ID, revision: Int, Outcome<Note>)
        /// The client answered a delete.
        case deleteResponse(Note.ID, Outcome<Done>)
        /// The user dismissed the error shown.
        case errorDismissed
        /// The list being loaded reflects the stored notes' changes up to `cursor` (sent just
        /// before a successful ``listResponse(_:)``).
        case followingChanges(from: NotesCursor)
        /// The stored notes may have been changed elsewhere (another process on the database).
        case externalChangesNoticed
        /// The client answered what changed since `cursor`.
        case changesResponse(since: NotesCursor, Outcome<NoteChanges>)
    }

    private let client: NotesClient
    private let token: AccessToken
    private let clock: any Clock<Duration>
    private let uuid: UUIDGenerator
    private let now: DateGenerator

    /// The notes of the session holding `token`, with `environment`'s notes client, clock, ids
    /// and dates.
    public init(environment: AppEnvironment, token: AccessToken) {
        client = environment.notes
        self.token = token
        clock = environment.clock
        uuid = environment.uuid
        now = environment.now
    }

    /// Identifies the save effects of one note, so a newer save replaces an older one.
    struct SaveID: Hashable, Sendable { let note: Note.ID }
    struct SearchID: Hashable, Sendable {}

    /// Applies one notes action.
    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
        reduce(into: &state, action: action, token: token)
    }

    /// Applies one notes action for the session holding `token`: what a reducer built once for
    /// every session of an app calls, where building one per action copies every client.
    package func reduce(into state: inout State, action: Action, token: AccessToken) -> Effect<Action> {
        switch action {
        case .listRequested:
            if state.list == .loading { return reject(action, state, "the notes are already loading") }
            state.list = .loading
            let (client, token, limit) = (client, token, state.rowLimit)
            return .run { send in
                // The cursor first: a change made between the two reads is asked for again later,
                // and merging it twice changes nothing.
                let cursor = try? await client.changes(token, nil).cursor
                let outcome = await Outcome { () async throws(AppError) in try await client.page(token, "", after: nil, limit: limit) }
                if case .success = outcome, let cursor { send(.followingChanges(from: cursor)) }
                send(.pageResponse(query: "", after: nil, outcome))
            }

        case .followingChanges(let cursor):
            guard state.list == .loading else { return reject(action, state, "no list request is in flight") }
            state.changeCursor = cursor
            return .none

        case .externalChangesNoticed:
            // A notice is a hint from the background: with nothing listed there is nothing to update.
            guard let cursor = state.changeCursor, state.list == .loaded else { return .none }
            let (client, token) = (client, token)
            return .run { send in
                send(.changesResponse(since: cursor, await Outcome { () async throws(AppError) in try await client.changes(token, cursor) }))
            }

        case .changesResponse(_, let outcome):
            guard let current = state.changeCursor, state.list == .loaded else {
                return reject(action, state, "the notes are not listed")
            }
            switch outcome {
            case .success(let changes):
                // An answer overtaken by a later one (or by a reload) has nothing new.
                guard changes.cursor > current else { return .none }
                state.changeCursor = changes.cursor
                // Too far behind for a change: the whole list, merged as a reload would be.
                if changes.replacesAll { merge(stored: changes.changed, into: &state) } else { apply(changes, into: &state) }
                Self.trimList(&state)
                if let total = changes.total, state.listTotal != nil { state.listTotal = total + state.unstoredCount }
            case .failure(let error):
                state.error = error
            }
            return .none

        case .listResponse(let outcome):
            guard state.list == .loading else { return reject(action, state, "no list request is in flight") }
            switch outcome {
            case .success(let notes):
                state.list = .loaded
                state.listEnd = nil
                state.listTotal = nil
                merge(stored: notes, into: &state)
            case .failure(let error):
                state.list = .failed(error)
                state.error = error
            }
            return .none

        case .pageResponse(let query, let after, let outcome):
            return receive(outcome, of: query, after: after, into: &state, action: action, token: token)

        case .addTapped(let text):
            // The id and date are chosen by an effect and carried by the action that applies
            // them, so the reducer stays pure: replaying a journal or a timeline gives the same
            // notes and draws no ids.
            let (uuid, now) = (uuid, now)
            return .send { .inserted(Note(id: Note.ID(uuid()), text: text, createdAt: now())) }

        case .inserted(let note):
            if state.items[id: note.id] != nil { return reject(action, state, "a note with id \(note.id) already exists") }
            state.list(Item(note: note, save: .saving, isStored: false, revision: 1))
            state.listTotal? += 1
            state.selectedID = note.id
            Self.trimList(&state)
            return save(note, revision: 1, isStored: false, token: token)

        case .edited(let id, let text, let basedOn):
            guard let item = state.items[id: id] else { return reject(action, state, Self.unknown(id)) }
            if item.isDeleting { return reject(action, state, "the note is being deleted") }
            guard item.note.text != text else { return .none }
            let now = now
            return .send { .changed(id, text, at: now(), basedOn: basedOn) }

        case .changed(let id, let text, let date, let basedOn):
            guard let item = state.items[id: id] else { return reject(action, state, Self.unknown(id)) }
            if item.isDeleting { return reject(action, state, "the note is being deleted") }
            guard item.note.text != text else { return .none }
            var edited = item
            // The store refuses a save based on a version it no longer holds.
            if let basedOn { edited.note.version = basedOn }
            edited.note.text = text
            edited.note.updatedAt = date
            edited.revision += 1
            edited.save = .saving
            state.list(edited)
            return save(edited.note, revision: edited.revision, isStored: edited.isStored, token: token)

        case .retrySaveTapped(let id):
            guard let item = state.items[id: id] else { return reject(action, state, Self.unknown(id)) }
            guard item.isUnsaved, !item.isDeleting else { return reject(action, state, "the note has no failed save to retry") }
            state.items.modify(id: id) { $0.save = .saving }
            return save(item.note, revision: item.revision, isStored: item.isStored, token: token)

        case .saveResponse(let id, let revision, let outcome):
            guard let item = state.items[id: id] else { return reject(action, state, Self.unknown(id)) }
            guard revision <= item.revision else { return reject(action, state, "revision \(revision) of the note was never made") }
            state.items.modify(id: id) { item in
                switch outcome {
                case .success(let stored):
                    item.isStored = true
                    // Later changes are based on the version this one stored.
                    if let version = stored.version, version > item.note.version ?? .min { item.note.version = version }
                    if revision == item.revision { item.save = .saved }
                case .failure(.conflict(let conflict)):
                    // Someone else's version stands: the user's text stays, unsaved, and a retry
                    // (their choice) is based on theirs, so it overwrites it on purpose.
                    item.settle(conflict)
                    if revision == item.revision { item.save = .failed(.conflict(conflict)) }
                case .failure(.notFound):
                    // Deleted elsewhere: the text is still here and a retry stores it anew.
                    item.isStored = false
                    if revision == item.revision { item.save = .failed(.notFound(.note, id: id.description)) }
                case .failure(let error):
                    if revision == item.revision { item.save = .failed(error) }
                }
            }
            return .none

        case .deleteTapped(let id, let basedOn):
            guard let item = state.items[id: id] else { return reject(action, state, Self.unknown(id)) }
            if item.isDeleting { return reject(action, state, "the note is already being deleted") }
            state.items.modify(id: id) { item in
                item.isDeleting = true
                // A save still in flight is cancelled below; if the delete fails, it can be retried.
                if item.save == .saving { item.save = .failed(.cancelled) }
            }
            var based = item.note
            if let basedOn { based.version = basedOn }
            let (client, token, note) = (client, token, based)
            return .concatenate(
                .cancel(id: SaveID(note: id)),
                .run { send in
                    send(
                        .deleteResponse(
                            id,
                            await Outcome { () async throws(AppError) in
                                try await client.delete(token, note)
                                return Done()
                            }))
                }
            )

        case .deleteResponse(let id, let outcome):
            guard let item = state.items[id: id], item.isDeleting else {
                return reject(action, state, "no delete of note \(id) is in flight")
            }
            switch outcome {
            case .success, .failure(.notFound):
                state.items.remove(id: id)
                if state.selectedID == id { state.selectedID = nil }
                state.listTotal? -= 1
                if state.searchResults?.contains(id) == true {
                    state.searchResults?.removeAll { $0 == id }
                    state.searchTotal? -= 1
                }
                // The page keeps its rows: the note after it moves in.
                return readMore(state, token: token)
            case .failure(let error):
                state.items.modify(id: id) { item in
                    item.isDeleting = false
                    // Changed elsewhere since: their version is shown, and deleting again deletes it.
                    if case .conflict(let conflict) = error {
                        if case .changed(let theirs) = conflict, item.save == .saved { item.note = theirs }
                        item.settle(conflict)
                    }
                }
                state.error = error
            }
            return .none

        case .selected(let id):
            if let id, state.items[id: id] == nil { return reject(action, state, Self.unknown(id)) }
            state.selectedID = id
            return .none

        case .searchQueryChanged(let query):
            return search(query, in: &state, token: token, isTyped: true)

        case .searchSubmitted(let query):
            return search(query, in: &state, token: token, isTyped: false)

        case .searchResponse(let query, let outcome):
            guard state.isSearching, query == state.searchQuery else {
                return reject(action, state, "the search for “\(query)” was superseded")
            }
            state.isSearching = false
            switch outcome {
            case .success(let results):
                for note in results.unlisted where state.items[id: note.id] == nil {
                    state.list(Item(note: note))
                }
                // A match deleted here while the search ran stays deleted.
                state.searchResults = results.ids.filter { state.items.contains(id: $0) }
            case .failure(let error):
                state.error = error
            }
            return .none

        case .moreRowsRequested:
            guard state.rowLimit < state.shownCount else {
                return reject(action, state, "every row is shown already")
            }
            state.rowLimit += Self.pageSize
            return readMore(state, token: token)

        case .errorDismissed:
            guard state.error != nil else { return reject(action, state, "there is no error to dismiss") }
            state.error = nil
            return .none
        }
    }

    // MARK: - Helpers

    /// Shows `query` as the search and searches for it, once typing pauses when `isTyped`, at once
    /// otherwise, replacing the search pending; an empty query lists every note again.
    private func search(_ query: String, in state: inout State, token: AccessToken, isTyped: Bool) -> Effect<Action> {
        state.searchQuery = query
        guard !query.allSatisfy(\.isWhitespace) else {
            state.searchResults = nil
            state.searchEnd = nil
            state.searchTotal = nil
            state.isSearching = false
            // The matches read beyond the list's part leave with the search, and the list shows
            // its first page again.
            let leaving = state.items.filter { $0.isStored && $0.save == .saved && !$0.isDeleting && $0.id != state.selectedID && !state.listReaches($0.note) }
            for item in leaving { state.items.remove(id: item.id) }
            state.rowLimit = Self.pageSize
            Self.trimList(&state)
            return .cancel(id: SearchID())
        }
        // A new search shows its first page.
        state.rowLimit = Self.pageSize
        state.isSearching = true
        // The first page of matches and their count: what it costs grows with the page, not
        // with the matches.
        let (client, token, limit) = (client, token, state.rowLimit)
        let searching = Effect<Action>.run { send in
            send(
                .pageResponse(
                    query: query, after: nil, await Outcome { () async throws(AppError) in try await client.page(token, query, after: nil, limit: limit) }))
        }
        return isTyped
            ? searching.debounce(id: SearchID(), for: Self.searchDebounce, clock: clock)
            : searching.cancellable(id: SearchID(), cancelInFlight: true)
    }

    /// Takes a page the client answered with: a first page replaces, a later one adds.
    private func receive(
        _ outcome: Outcome<NotePage>, of query: String, after: NotesPosition?, into state: inout State, action: Action, token: AccessToken
    ) -> Effect<Action> {
        let isList = query.allSatisfy(\.isWhitespace)
        if let after {
            // A later page: only for what is still shown, from where it still ends.
            guard isList ? state.searchResults == nil : (state.searchResults != nil && query == state.searchQuery), after == state.end else {
                return reject(action, state, "the page after “\(after.id)” was superseded")
            }
        } else if isList {
            guard state.list == .loading else { return reject(action, state, "no list request is in flight") }
        } else {
            guard state.isSearching, query == state.searchQuery else { return reject(action, state, "the search for “\(query)” was superseded") }
            state.isSearching = false
        }
        var page: NotePage
        switch outcome {
        case .success(let read):
            page = read
            // In the list's order, whatever order a client answered in.
            page.notes.sort { $0.isListed(before: $1) }
        case .failure(let error):
            if isList, after == nil { state.list = .failed(error) }
            state.error = error
            return .none
        }
        if isList {
            if after == nil {
                state.list = .loaded
                state.listEnd = nil
                merge(stored: page.notes, into: &state)
            } else {
                for note in page.notes where state.items[id: note.id] == nil { state.list(Item(note: note)) }
            }
            let read = state.items.lazy.filter { $0.isStored }.count
            state.listEnd = read < page.total ? page.notes.last.map(NotesPosition.init) ?? state.listEnd : nil
            state.listTotal = page.total + state.unstoredCount
        } else {
            for note in page.notes where state.items[id: note.id] == nil { state.list(Item(note: note)) }
            // A match deleted here while the page was read stays deleted.
            let found = page.notes.map(\.id).filter { state.items.contains(id: $0) }
            state.searchResults = after == nil ? found : (state.searchResults ?? []) + found.filter { !(state.searchResults ?? []).contains($0) }
            state.searchTotal = page.total
            state.searchEnd = (state.searchResults?.count ?? 0) < page.total ? page.notes.last.map(NotesPosition.init) ?? state.searchEnd : nil
        }
        return readMore(state, token: token)
    }

    /// Keeps the part of the list held to the rows the reader was promised: stored notes pushed
    /// past them (by notes added above) leave, and are read again with their page.
    static func trimList(_ state: inout State) {
        // A list held whole (no count from the store: a state from before pages) stays whole.
        // Trimmed a few rows past the page at once, so adding note after note walks the page
        // once every few adds, not at each.
        guard state.searchResults == nil, state.listTotal != nil, state.items.count > state.rowLimit + trimSlack else { return }
        var kept = 0
        var last: Note?
        var leaving: [Note.ID] = []
        for item in state.items where item.isStored && item.save == .saved && !item.isDeleting && item.id != state.selectedID {
            if kept < state.rowLimit {
                kept += 1
                last = item.note
            } else {
                leaving.append(item.id)
            }
        }
        guard let last, !leaving.isEmpty else { return }
        for id in leaving { state.items.remove(id: id) }
        state.listEnd = NotesPosition(last)
    }

    /// How many rows past the page the list holds before it is trimmed back to the page.
    public static let trimSlack = 16

    /// Reads the next page when fewer rows are held than the reader was promised.
    private func readMore(_ state: State, token: AccessToken) -> Effect<Action> {
        guard let end = state.end else { return .none }
        let held = state.searchResults?.count ?? state.items.count
        guard held < state.rowLimit else { return .none }
        let (client, token, query, limit) = (client, token, state.searchResults == nil ? "" : state.searchQuery, state.rowLimit - held)
        return .run { send in
            send(
                .pageResponse(
                    query: query, after: end, await Outcome { () async throws(AppError) in try await client.page(token, query, after: end, limit: limit) }))
        }
    }

    /// Stores `note`: creates it until it was stored once, then updates it.
    private func save(_ note: Note, revision: Int, isStored: Bool, token: AccessToken) -> Effect<Action> {
        let (client, token) = (client, token)
        return .run { send in
            let outcome = await Outcome { () async throws(AppError) in
                isStored ? try await client.update(token, note) : try await client.create(token, note)
            }
            send(.saveResponse(note.id, revision: revision, outcome))
        }
        .cancellable(id: SaveID(note: note.id), cancelInFlight: true)
    }

    /// Replaces the stored notes with `stored`, keeping local changes not stored yet.
    private func merge(stored: [Note], into state: inout State) {
        let storedIDs = Set(stored.map(\.id))
        // A note in conflict takes the stored version: reloading is how the user takes theirs.
        let keepsLocal = { (local: Item) in (local.save != .saved && !local.isInConflict) || local.isDeleting }
        var merged: [Item] = stored.map { note in
            if let local = state.items[id: note.id], keepsLocal(local) { return local }
            return Item(note: note)
        }
        merged += state.items.filter { !storedIDs.contains($0.id) && keepsLocal($0) }
        merged.sort(by: State.isListed)
        // A reload that finds what is listed keeps the list as it is: whoever compares it after
        // (every screen read) sees the same version at once rather than walking every row.
        if state.items.count != merged.count || !state.items.elementsEqual(merged) {
            state.items = IdentifiedArray(uniqueElements: merged)
        }
        if let selected = state.selectedID, state.items[id: selected] == nil { state.selectedID = nil }
        if let results = state.searchResults { state.searchResults = results.filter { state.items.contains(id: $0) } }
    }

    /// Applies changes made elsewhere, row by row, as ``merge(stored:into:)`` would: a note with
    /// local changes not stored yet keeps them; the others take the stored version, or leave.
    private func apply(_ changes: NoteChanges, into state: inout State) {
        for id in changes.removed {
            guard let local = state.items[id: id], local.save == .saved, !local.isDeleting else {
                // A note in conflict shows what the other writer did last.
                if state.items[id: id]?.isInConflict == true { state.items.modify(id: id) { $0.updateConflict(.deleted(id)) } }
                continue
            }
            state.items.remove(id: id)
            if state.selectedID == id { state.selectedID = nil }
            state.searchResults?.removeAll { $0 == id }
        }
        for note in changes.changed {
            if let local = state.items[id: note.id] {
                guard local.save == .saved, !local.isDeleting, local.note != note else {
                    if local.isInConflict { state.items.modify(id: note.id) { $0.updateConflict(.changed(note)) } }
                    continue
                }
            } else if !state.listReaches(note) {
                // Beyond the part of the list read so far: it is read with its page.
                continue
            }
            state.list(Item(note: note))
        }
    }

    private static func unknown(_ id: Note.ID) -> String {
        "there is no note with id \(id)"
    }

    private func reject(_ action: Action, _ state: State, _ reason: String) -> Effect<Action> {
        .diagnostic(.invalidTransition(action: action, state: Self.summary(of: state), reason: reason))
    }

    /// A short description of the state for diagnostics (the notes themselves can be many).
    static func summary(of state: State) -> String {
        "\(state.items.count) notes, list \(state.list)"
    }
}

extension Notes.Action: FeatureAction {
    /// The failed client call this action reports.
    public var failure: AppError? {
        switch self {
        case .listResponse(.failure(let error)), .saveResponse(_, _, .failure(let error)), .searchResponse(_, .failure(let error)),
            .changesResponse(_, .failure(let error)), .pageResponse(_, _, .failure(let error)):
            error
        case .deleteResponse(_, .failure(.notFound)): nil
        case .deleteResponse(_, .failure(let error)): error
        case .listRequested, .listResponse(.success), .addTapped, .inserted, .edited, .changed, .deleteTapped, .selected,
            .searchQueryChanged, .searchSubmitted, .searchResponse(_, .success), .moreRowsRequested, .retrySaveTapped, .saveResponse(_, _, .success),
            .deleteResponse(_, .success),
            .errorDismissed, .followingChanges, .externalChangesNoticed, .changesResponse(_, .success), .pageResponse(_, _, .success):
            nil
        }
    }

    /// Never: notes hold no secret.
    public var carriesSecret: Bool { false }

    /// The text of the notes it carries, and of a search's query.
    public var payloadBytes: Int {
        switch self {
        case .addTapped(let text), .edited(_, let text, _), .changed(_, let text, _, _), .searchQueryChanged(let text), .searchSubmitted(let text):
            text.utf8.count
        case .inserted(let note), .saveResponse(_, _, .success(let note)): note.text.utf8.count
        case .listResponse(.success(let notes)):
            notes.reduce(0) { $0 + MemoryLayout<Note>.stride + $1.text.utf8.count }
        case .pageResponse(_, _, .success(let page)):
            page.notes.reduce(0) { $0 + MemoryLayout<Note>.stride + $1.text.utf8.count }
        case .searchResponse(_, .success(let results)):
            results.unlisted.reduce(results.ids.count * MemoryLayout<Note.ID>.stride) { $0 + MemoryLayout<Note>.stride + $1.text.utf8.count }
        case .changesResponse(_, .success(let changes)):
            changes.changed.reduce(changes.removed.count * MemoryLayout<Note.ID>.stride) { $0 + MemoryLayout<Note>.stride + $1.text.utf8.count }
        case .searchResponse(let query, .failure), .pageResponse(let query, _, .failure): query.utf8.count
        case .listRequested, .listResponse(.failure), .deleteTapped, .selected, .retrySaveTapped, .saveResponse(_, _, .failure),
            .deleteResponse, .errorDismissed, .followingChanges, .externalChangesNoticed, .changesResponse(_, .failure), .moreRowsRequested:
            0
        }
    }
}

extension Notes.State {
    /// The one order of the list: `Note.isListed(before:)`, most recently changed first.
    static func isListed(_ item: Notes.Item, before other: Notes.Item) -> Bool {
        item.note.isListed(before: other.note)
    }

    /// Puts `item` where the list shows it: the one rule every path that lists a note follows.
    mutating func list(_ item: Notes.Item) {
        if let index = items.index(id: item.id) {
            let fitsAfter = index == 0 || Self.isListed(items[index - 1], before: item)
            let fitsBefore = index == items.count - 1 || Self.isListed(item, before: items[index + 1])
            if fitsAfter && fitsBefore {
                items[id: item.id] = item
                return
            }
            items.remove(at: index)
        }
        // Most often the note goes first (it was just added or edited); otherwise the list is in
        // its order, so the place is found by bisection.
        if items.isEmpty || Self.isListed(item, before: items[0]) {
            items.insert(item, at: 0)
            return
        }
        var low = 1
        var high = items.count
        while low < high {
            let middle = (low + high) / 2
            if Self.isListed(items[middle], before: item) { low = middle + 1 } else { high = middle }
        }
        items.insert(item, at: low)
    }
}

/// The first page of rows, the default of `Notes.State.rowLimit` (journals written before it
/// read as this).
public enum FirstPage: DefaultValue {
    /// ``Notes/pageSize``.
    public static var value: Int { Notes.pageSize }
}
