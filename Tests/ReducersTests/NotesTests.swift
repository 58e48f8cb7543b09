import AppEnvironment
import Foundation
import Models
import Reducers
import StateStore
import StateStoreTesting
import TestSupport
import Testing

@Suite("Notes")
struct NotesTests {
    let clock = TestClock()

    func store(
        _ state: Notes.State = Notes.State(),
        configure: (inout NotesClient) -> Void = { _ in }
    ) -> TestStore<Notes.State, Notes.Action> {
        var environment = failingEnvironment(clock: clock)
        configure(&environment.notes)
        return TestStore(initialState: state, reducer: Notes(environment: environment, token: aliceToken))
    }

    /// A store listing milk and eggs whose searches find `found`, each query kept in `asked`.
    func searchingStore(finding found: [Note], asked: Locked<[String]>) -> TestStore<Notes.State, Notes.Action> {
        store(Notes.State(items: [Notes.Item(note: note(7, "milk")), Notes.Item(note: note(8, "eggs"))], list: .loaded)) {
            $0.search = { _, query in
                asked.withLock { $0.append(query) }
                return found
            }
        }
    }

    static let firstID = Note.ID(UUID(sequence: 1))

    @Test func listLoadsAndAFailureIsShown() async {
        let answers = Answers<[Note]>([.failure(.network(reason: "offline")), .success([note(7, "milk", updated: 2), note(8, "eggs", updated: 1)])])
        let cursor = NotesCursor(position: 5)
        let store = store {
            $0.list = { _ throws(AppError) in try answers.next().result.get() }
            $0.changes = { _, _ in NoteChanges(cursor: cursor) }
        }
        await store.send(.listRequested) { $0.list = .loading }
        await store.receive(.pageResponse(query: "", after: nil, .failure(.network(reason: "offline")))) {
            $0.list = .failed(.network(reason: "offline"))
            $0.error = .network(reason: "offline")
        }
        await store.send(.errorDismissed) { $0.error = nil }
        await store.send(.listRequested) { $0.list = .loading }
        await store.receive(.followingChanges(from: cursor)) { $0.changeCursor = cursor }
        await store.receive(
            .pageResponse(query: "", after: nil, .success(NotePage(notes: [note(7, "milk", updated: 2), note(8, "eggs", updated: 1)], total: 2)))
        ) {
            $0.list = .loaded
            $0.items = [Notes.Item(note: note(7, "milk", updated: 2)), Notes.Item(note: note(8, "eggs", updated: 1))]
            $0.listTotal = 2
        }
        await store.finish()
    }

    @Test func aReloadThatFindsTheSameNotesKeepsTheListAsItIs() {
        let stored = [note(7, "milk", updated: 2), note(8, "eggs", updated: 1)]
        var state = Notes.State()
        let notes = Notes(environment: failingEnvironment(clock: clock), token: aliceToken)
        state.list = .loading
        _ = notes.reduce(into: &state, action: .listResponse(.success(stored)))
        let listed = state.items.version
        state.list = .loading
        _ = notes.reduce(into: &state, action: .listResponse(.success(stored)))
        #expect(state.items.version == listed, "the same notes: the same list, so readers compare nothing")
        state.list = .loading
        _ = notes.reduce(into: &state, action: .listResponse(.success([note(9, "bread", updated: 3)] + stored)))
        #expect(state.items.map(\.note.text) == ["bread", "milk", "eggs"])
    }

    @Test func anAddedNoteIsPendingUntilStored() async {
        let store = store {
            $0.create = { token, note in
                #expect(token == aliceToken)
                return note
            }
        }
        let added = Note(id: Self.firstID, text: "buy milk", createdAt: fixedDate)
        await store.send(.addTapped("buy milk"))
        await store.receive(.inserted(added)) {
            $0.items = [Notes.Item(note: added, save: .saving, isStored: false, revision: 1)]
            $0.selectedID = Self.firstID
        }
        await store.receive(.saveResponse(Self.firstID, revision: 1, .success(added))) {
            $0.items[0].save = .saved
            $0.items[0].isStored = true
        }
        await store.finish()
    }

    @Test func pendingAndUnsavedAreDerivedFromTheSaveAndDelete() {
        let note = note(1, "x")
        #expect(Notes.Item(note: note, save: .saving).isPending)
        #expect(Notes.Item(note: note, isDeleting: true).isPending)
        #expect(!Notes.Item(note: note).isPending)
        #expect(Notes.Item(note: note, save: .failed(.cancelled)).isUnsaved)
        #expect(!Notes.Item(note: note, save: .saving).isUnsaved)
    }

    @Test func aFailedSaveKeepsTheTextAndCanBeRetried() async {
        let creates = Answers<Note>([.failure(.storage(reason: "disk full")), .success(Note(id: Self.firstID, text: "buy milk", createdAt: fixedDate))])
        let store = store {
            $0.create = { _, note throws(AppError) in
                #expect(note.text == "buy milk")
                return try creates.next().result.get()
            }
        }
        let added = Note(id: Self.firstID, text: "buy milk", createdAt: fixedDate)
        await store.send(.addTapped("buy milk"))
        await store.receive(.inserted(added)) {
            $0.items = [Notes.Item(note: added, save: .saving, isStored: false, revision: 1)]
            $0.selectedID = Self.firstID
        }
        await store.receive(.saveResponse(Self.firstID, revision: 1, .failure(.storage(reason: "disk full")))) {
            $0.items[0].save = .failed(.storage(reason: "disk full"))
        }
        #expect(store.state.items.first?.isUnsaved == true)
        #expect(store.state.items.first?.note.text == "buy milk")
        await store.send(.retrySaveTapped(Self.firstID)) { $0.items[0].save = .saving }
        await store.receive(.saveResponse(Self.firstID, revision: 1, .success(added))) {
            $0.items[0].save = .saved
            $0.items[0].isStored = true
        }
        await store.send(.retrySaveTapped(Self.firstID))
        await store.expectDiagnostic(.invalidTransition, containing: "no failed save")
        await store.finish()
    }

    @Test func editsOfAStoredNoteUpdateItAndMoveItToTheTop() async {
        let older = note(7, "milk", updated: -2)
        let newer = note(8, "eggs", updated: -1)
        let store = store(Notes.State(items: [Notes.Item(note: newer), Notes.Item(note: older)], list: .loaded)) {
            $0.update = { _, note in note }
        }
        var edited = older
        edited.text = "oat milk"
        edited.updatedAt = fixedDate
        await store.send(.edited(older.id, "oat milk"))
        await store.receive(.changed(older.id, "oat milk", at: fixedDate)) {
            $0.items = [Notes.Item(note: edited, save: .saving, isStored: true, revision: 1), Notes.Item(note: newer)]
        }
        await store.receive(.saveResponse(older.id, revision: 1, .success(edited))) {
            $0.items[0].save = .saved
        }
        // The same text again is no change at all.
        await store.send(.edited(older.id, "oat milk"))
        await store.finish()
    }

    @Test func replayingTheAppliedActionsGivesTheSameNotesWhateverTheClock() {
        // What a journal replays: the actions that carry their id and date.
        let actions: [Notes.Action] = [
            .inserted(Note(id: Self.firstID, text: "milk", createdAt: fixedDate)),
            .changed(Self.firstID, "oat milk", at: fixedDate.addingTimeInterval(60)),
        ]
        func replay(now: Date) -> Notes.State {
            var environment = AppEnvironment.noop()
            environment.now = .constant(now)
            environment.uuid = .constant(UUID(sequence: 77))
            var state = Notes.State()
            for action in actions { _ = Notes(environment: environment, token: aliceToken).reduce(into: &state, action: action) }
            return state
        }
        #expect(replay(now: fixedDate) == replay(now: Date.distantFuture))
        #expect(replay(now: Date.distantFuture).items.first?.note.updatedAt == fixedDate.addingTimeInterval(60))
    }

    @Test func onlyTheResponseForTheLatestRevisionSettlesANote() async {
        var item = Notes.Item(note: note(7, "draft two"), save: .saving, isStored: true, revision: 2)
        let store = store(Notes.State(items: [item], list: .loaded))
        // A response for revision 1 arrives late: the note stays pending for revision 2.
        await store.send(.saveResponse(item.id, revision: 1, .failure(.network(reason: "offline"))))
        await store.send(.saveResponse(item.id, revision: 2, .success(item.note))) {
            $0.items[0].save = .saved
        }
        await store.send(.saveResponse(item.id, revision: 3, .success(item.note)))
        await store.expectDiagnostic(.invalidTransition, containing: "revision 3")
        item.save = .saved
        #expect(store.state.items.first == item)
        await store.finish()
    }

    @Test func aNoteDeletedElsewhereIsKeptAndRecreatedOnRetry() async {
        let stored = note(7, "milk")
        let store = store(Notes.State(items: [Notes.Item(note: stored)], list: .loaded)) {
            $0.update = { _, note throws(AppError) in throw .notFound(.note, id: note.id.description) }
            $0.create = { _, note in note }
        }
        var edited = stored
        edited.text = "oat milk"
        await store.send(.edited(stored.id, "oat milk"))
        await store.receive(.changed(stored.id, "oat milk", at: fixedDate)) {
            $0.items = [Notes.Item(note: edited, save: .saving, isStored: true, revision: 1)]
        }
        await store.receive(.saveResponse(stored.id, revision: 1, .failure(.notFound(.note, id: stored.id.description)))) {
            $0.items[0].save = .failed(.notFound(.note, id: stored.id.description))
            $0.items[0].isStored = false
        }
        await store.send(.retrySaveTapped(stored.id)) { $0.items[0].save = .saving }
        await store.receive(.saveResponse(stored.id, revision: 1, .success(edited))) {
            $0.items[0].save = .saved
            $0.items[0].isStored = true
        }
        await store.finish()
    }

    @Test func deletingRemovesTheNoteOnlyOnceStorageConfirms() async {
        let milk = note(7, "milk")
        let eggs = note(8, "eggs")
        let deletes = Answers<Done>([.failure(.network(reason: "offline")), .success(Done())])
        let store = store(Notes.State(items: [Notes.Item(note: milk), Notes.Item(note: eggs)], selectedID: milk.id, list: .loaded)) {
            $0.delete = { _, note throws(AppError) in
                #expect(note == milk)
                _ = try deletes.next().result.get()
            }
        }
        await store.send(.deleteTapped(milk.id)) { $0.items[0].isDeleting = true }
        await store.receive(.deleteResponse(milk.id, .failure(.network(reason: "offline")))) {
            $0.items[0].isDeleting = false
            $0.error = .network(reason: "offline")
        }
        await store.send(.deleteTapped(milk.id)) { $0.items[0].isDeleting = true }
        await store.receive(.deleteResponse(milk.id, .success(Done()))) {
            $0.items = [Notes.Item(note: eggs)]
            $0.selectedID = nil
        }
        await store.finish()
    }

    @Test func unknownIdsAreRejectedWithTheirId() async {
        let store = store(Notes.State(items: [Notes.Item(note: note(7, "milk"))], list: .loaded))
        let unknown = Note.ID(UUID(sequence: 99))
        for action in [Notes.Action.selected(unknown), .edited(unknown, "x"), .deleteTapped(unknown), .retrySaveTapped(unknown)] {
            await store.send(action)
            await store.expectDiagnostic(.invalidTransition, containing: "no note with id \(unknown)")
        }
        await store.send(.selected(note(7, "milk").id)) { $0.selectedID = note(7, "milk").id }
        await store.send(.selected(nil)) { $0.selectedID = nil }
        await store.finish()
    }

    @Test func searchIsDebouncedAndEarlierSearchesAreCancelled() async {
        let queries = Locked<[String]>([])
        let found = [note(7, "milk")]
        let store = searchingStore(finding: found, asked: queries)
        await store.send(.searchQueryChanged("m")) {
            $0.searchQuery = "m"; $0.isSearching = true
        }
        #expect(await clock.untilSleeping())
        await clock.advance(by: .milliseconds(200))
        await store.send(.searchQueryChanged("mi")) { $0.searchQuery = "mi" }
        #expect(await clock.untilSleeping())
        await clock.advance(by: .milliseconds(200))
        await store.send(.searchQueryChanged("mil")) { $0.searchQuery = "mil" }
        #expect(await clock.untilSleeping())
        await clock.advance(by: .milliseconds(299))
        #expect(queries.withLock { $0 }.isEmpty, "nothing is searched before the query rests")
        await clock.advance(by: .milliseconds(1))
        await store.receive(.pageResponse(query: "mil", after: nil, .success(NotePage(notes: [note(7, "milk")], total: 1)))) {
            $0.isSearching = false
            $0.searchResults = [note(7, "milk").id]
            $0.searchTotal = 1
        }
        #expect(queries.withLock { $0 } == ["mil"])
        #expect(store.state.visibleItems.map(\.note.text) == ["milk"])
        await store.send(.searchQueryChanged("")) {
            $0.searchQuery = ""
            $0.searchResults = nil
            $0.searchTotal = nil
        }
        await store.finish()
    }

    @Test func aSubmittedSearchIsAnsweredAtOnceAndReplacesATypedOne() async {
        let queries = Locked<[String]>([])
        let found = [note(8, "eggs")]
        let store = searchingStore(finding: found, asked: queries)
        await store.send(.searchQueryChanged("mil")) {
            $0.searchQuery = "mil"; $0.isSearching = true
        }
        #expect(await clock.untilSleeping())
        // Submitted before typing paused: the typed search is dropped, the clock is not waited on.
        await store.send(.searchSubmitted("eggs")) { $0.searchQuery = "eggs" }
        await store.receive(.pageResponse(query: "eggs", after: nil, .success(NotePage(notes: [note(8, "eggs")], total: 1)))) {
            $0.isSearching = false
            $0.searchResults = [note(8, "eggs").id]
            $0.searchTotal = 1
        }
        await clock.advance(by: Notes.searchDebounce)
        #expect(queries.withLock { $0 } == ["eggs"], "the typed query was never searched")
        await store.send(.searchSubmitted(" ")) {
            $0.searchQuery = " "
            $0.searchResults = nil
            $0.searchTotal = nil
        }
        await store.finish()
    }

    @Test func aSearchPageListsTheMatchesTheListDidNotHold() async {
        let queries = Locked<[String]>([])
        // Note 9 was written elsewhere and is not listed yet.
        let store = searchingStore(finding: [note(8, "eggs"), note(9, "egg cups")], asked: queries)
        await store.send(.searchSubmitted("egg")) {
            $0.searchQuery = "egg"; $0.isSearching = true
        }
        // In the list's order (the newer note first), whatever order the client answered in.
        await store.receive(.pageResponse(query: "egg", after: nil, .success(NotePage(notes: [note(8, "eggs"), note(9, "egg cups")], total: 2)))) {
            $0.isSearching = false
            $0.items.insert(Notes.Item(note: note(9, "egg cups")), at: 0)
            $0.searchResults = [note(9, "egg cups").id, note(8, "eggs").id]
            $0.searchTotal = 2
        }
        #expect(store.state.visibleItems.map(\.note.text) == ["egg cups", "eggs"])
        await store.finish()
    }

    @Test func searchResultsWrittenAsNotesBeforeResultsWereKeptByIDStillRead() throws {
        let found = [note(7, "milk"), note(8, "eggs")]
        let old = try JSONEncoder().encode(Outcome<[Note]>.success(found))
        let read = try JSONDecoder().decode(Outcome<Notes.SearchResults>.self, from: old)
        #expect(read == .success(Notes.SearchResults(ids: found.map(\.id), unlisted: found)))
        let now = Outcome<Notes.SearchResults>.success(Notes.SearchResults(found, listed: [Notes.Item(note: found[0])]))
        #expect(try JSONDecoder().decode(Outcome<Notes.SearchResults>.self, from: JSONEncoder().encode(now)) == now)
    }

    @Test func aFailedSearchIsShown() async {
        let store = store { $0.search = { _, _ throws(AppError) in throw .network(reason: "offline") } }
        await store.send(.searchQueryChanged("milk")) {
            $0.searchQuery = "milk"; $0.isSearching = true
        }
        #expect(await clock.untilSleeping())
        await clock.advance(by: Notes.searchDebounce)
        await store.receive(.pageResponse(query: "milk", after: nil, .failure(.network(reason: "offline")))) {
            $0.isSearching = false
            $0.error = .network(reason: "offline")
        }
        await store.finish()
    }

    @Test func changesMadeElsewhereComeInByTheRowsThatChangedKeepingLocalWork() async {
        let unsaved = Notes.Item(note: note(7, "my local text", updated: 5), save: .failed(.network(reason: "offline")), isStored: true, revision: 3)
        let kept = Notes.Item(note: note(8, "eggs", updated: 4))
        let edited = Notes.Item(note: note(9, "bread", updated: 3))
        let removed = Notes.Item(note: note(10, "jam", updated: 2))
        let since = NotesCursor(position: 20)
        let now = NotesCursor(position: 24)
        let changes = NoteChanges(
            changed: [note(11, "new elsewhere", updated: 6), note(7, "their text", updated: 6), note(9, "bread and butter", updated: 1)],
            removed: [note(10, "").id, note(99, "").id],
            cursor: now)
        let asked = Locked<[NotesCursor?]>([])
        let store = store(Notes.State(items: [unsaved, kept, edited, removed], selectedID: note(10, "").id, list: .loaded, changeCursor: since)) {
            $0.changes = { _, cursor in
                asked.withLock { $0.append(cursor) }
                return changes
            }
        }
        await store.send(.externalChangesNoticed)
        await store.receive(.changesResponse(since: since, .success(changes))) {
            $0.changeCursor = now
            // In listing order: the new note on top, the local text kept, the edited note moved down.
            $0.items = [
                Notes.Item(note: note(11, "new elsewhere", updated: 6)), unsaved, kept,
                Notes.Item(note: note(9, "bread and butter", updated: 1)),
            ]
            $0.selectedID = nil
        }
        #expect(asked.withLock { $0 } == [since], "asked for what changed since the list's cursor")
        // A late answer to an older question changes nothing.
        await store.send(.changesResponse(since: since, .success(NoteChanges(changed: [note(12, "stale", updated: 9)], cursor: since))))
        await store.finish()
    }

    @Test func aWholeListInAnswerToAChangeQuestionReplacesTheListKeepingLocalWork() async {
        let unsaved = Notes.Item(note: note(7, "my local text", updated: 5), save: .failed(.network(reason: "offline")), isStored: true, revision: 3)
        let gone = Notes.Item(note: note(10, "deleted elsewhere long ago", updated: 2))
        let since = NotesCursor(position: 20)
        let now = NotesCursor(position: 20_000)
        // The reader was too far behind for the store's record of deletions: note 10 is simply
        // not in the list any more.
        let whole = NoteChanges(changed: [note(8, "eggs", updated: 4), note(7, "their text", updated: 3)], cursor: now, replacesAll: true)
        let store = store(Notes.State(items: [unsaved, gone], selectedID: note(10, "").id, list: .loaded, changeCursor: since)) {
            $0.changes = { _, _ in whole }
        }
        await store.send(.externalChangesNoticed)
        await store.receive(.changesResponse(since: since, .success(whole))) {
            $0.changeCursor = now
            $0.items = [unsaved, Notes.Item(note: note(8, "eggs", updated: 4))]
            $0.selectedID = nil
        }
        await store.finish()
    }

    @Test func aNoticeWithNothingListedIsIgnoredQuietly() async {
        let store = store()
        await store.send(.externalChangesNoticed)
        await store.finish()
    }

    @Test func reloadingNeverOverwritesChangesNotStoredYet() async {
        let unsaved = Notes.Item(note: note(7, "my local text", updated: 5), save: .failed(.network(reason: "offline")), isStored: true, revision: 3)
        let neverStored = Notes.Item(note: note(9, "brand new", updated: 9), save: .failed(.network(reason: "offline")), isStored: false, revision: 1)
        let gone = Notes.Item(note: note(10, "deleted elsewhere"))
        let store = store(Notes.State(items: [neverStored, unsaved, gone], list: .loaded)) {
            $0.list = { _ in [note(7, "server text", updated: 1), note(8, "other", updated: 2)] }
            $0.changes = { _, _ in NoteChanges(cursor: NotesCursor(position: 1)) }
        }
        await store.send(.listRequested) { $0.list = .loading }
        await store.receive(.followingChanges(from: NotesCursor(position: 1))) { $0.changeCursor = NotesCursor(position: 1) }
        await store.receive(
            .pageResponse(query: "", after: nil, .success(NotePage(notes: [note(7, "server text", updated: 1), note(8, "other", updated: 2)], total: 2)))
        ) {
            $0.list = .loaded
            $0.items = [neverStored, unsaved, Notes.Item(note: note(8, "other", updated: 2))]
            $0.listTotal = 3
        }
        await store.finish()
    }

    @Test func aConflictKeepsTheTextUnsavedAndARetryOverwritesTheirVersionOnPurpose() async {
        var mine = note(7, "milk")
        mine.version = 3
        var theirs = note(7, "oat milk", updated: 2)
        theirs.version = 4
        let conflict = AppError.conflict(.changed(theirs))
        let updates = Answers<Note>([.failure(conflict), .success(Note(id: mine.id, text: "soy milk", createdAt: fixedDate, version: 5))])
        let store = store(Notes.State(items: [Notes.Item(note: mine)], list: .loaded)) {
            $0.update = { _, note throws(AppError) in
                #expect(note.version == (updates.remaining == 2 ? 3 : 4), "the first save is based on mine, the retry on theirs")
                return try updates.next().result.get()
            }
        }
        await store.send(.changed(mine.id, "soy milk", at: fixedDate)) {
            $0.items[0].note.text = "soy milk"
            $0.items[0].revision = 1
            $0.items[0].save = .saving
        }
        await store.receive(.saveResponse(mine.id, revision: 1, .failure(conflict))) {
            $0.items[0].save = .failed(conflict)
            $0.items[0].note.version = 4
        }
        #expect(store.state.items[0].note.text == "soy milk", "the user's text stays")
        #expect(store.state.items[0].isInConflict)
        await store.send(.retrySaveTapped(mine.id)) { $0.items[0].save = .saving }
        await store.receive(.saveResponse(mine.id, revision: 1, .success(Note(id: mine.id, text: "soy milk", createdAt: fixedDate, version: 5)))) {
            $0.items[0].save = .saved
            $0.items[0].note.version = 5
        }
        await store.finish()
    }

    @Test func aReloadTakesTheirVersionOfANoteInConflictAndKeepsOtherUnsavedText() async {
        var theirs = note(7, "oat milk", updated: 2)
        theirs.version = 4
        let inConflict = Notes.Item(note: note(7, "soy milk", updated: 1), save: .failed(.conflict(.changed(theirs))), revision: 2)
        let offline = Notes.Item(note: note(8, "eggs, mine", updated: 3), save: .failed(.network(reason: "offline")), revision: 1)
        let stored = theirs
        let store = store(Notes.State(items: [offline, inConflict], list: .loaded)) {
            $0.list = { _ in [note(8, "eggs", updated: 0), stored] }
            $0.changes = { _, _ in NoteChanges(cursor: NotesCursor(position: 9)) }
        }
        await store.send(.listRequested) { $0.list = .loading }
        await store.receive(.followingChanges(from: NotesCursor(position: 9))) { $0.changeCursor = NotesCursor(position: 9) }
        await store.receive(.pageResponse(query: "", after: nil, .success(NotePage(notes: [note(8, "eggs", updated: 0), theirs], total: 2)))) {
            $0.list = .loaded
            $0.items = [offline, Notes.Item(note: theirs)]
            $0.listTotal = 2
        }
        await store.finish()
    }

    @Test func aNoteInConflictShowsWhatTheOtherWriterDidLast() async {
        var theirs = note(7, "oat milk", updated: 2)
        theirs.version = 4
        var newer = theirs
        newer.text = "oat milk, 2 l"
        newer.version = 6
        let inConflict = Notes.Item(note: note(7, "soy milk", updated: 1), save: .failed(.conflict(.changed(theirs))), revision: 2)
        let answers = Answers<NoteChanges>([
            .success(NoteChanges(changed: [newer], cursor: NotesCursor(position: 6))),
            .success(NoteChanges(removed: [theirs.id], cursor: NotesCursor(position: 7))),
        ])
        let store = store(Notes.State(items: [inConflict], list: .loaded, changeCursor: NotesCursor(position: 4))) {
            $0.changes = { _, _ throws(AppError) in try answers.next().result.get() }
        }
        await store.send(.externalChangesNoticed)
        await store.receive(.changesResponse(since: NotesCursor(position: 4), .success(NoteChanges(changed: [newer], cursor: NotesCursor(position: 6))))) {
            $0.changeCursor = NotesCursor(position: 6)
            $0.items[0].save = .failed(.conflict(.changed(newer)))
            $0.items[0].note.version = 6
        }
        await store.send(.externalChangesNoticed)
        await store.receive(.changesResponse(since: NotesCursor(position: 6), .success(NoteChanges(removed: [theirs.id], cursor: NotesCursor(position: 7))))) {
            $0.changeCursor = NotesCursor(position: 7)
            $0.items[0].save = .failed(.conflict(.deleted(theirs.id)))
            $0.items[0].note.version = nil
            $0.items[0].isStored = false
        }
        #expect(store.state.items[0].note.text == "soy milk")
        await store.finish()
    }

    @Test func aDeleteOfANoteChangedElsewhereShowsTheirVersionAndDeletingAgainDeletesIt() async {
        var mine = note(7, "milk")
        mine.version = 3
        var theirs = note(7, "oat milk", updated: 2)
        theirs.version = 4
        let conflict = AppError.conflict(.changed(theirs))
        let deletes = Answers<Done>([.failure(conflict), .success(Done())])
        let store = store(Notes.State(items: [Notes.Item(note: mine)], list: .loaded)) {
            $0.delete = { _, note throws(AppError) in
                #expect(note.version == (deletes.remaining == 2 ? 3 : 4))
                _ = try deletes.next().result.get()
            }
        }
        await store.send(.deleteTapped(mine.id)) { $0.items[0].isDeleting = true }
        await store.receive(.deleteResponse(mine.id, .failure(conflict))) {
            $0.items[0].isDeleting = false
            $0.items[0].note = theirs
            $0.error = conflict
        }
        await store.send(.deleteTapped(mine.id)) { $0.items[0].isDeleting = true }
        await store.receive(.deleteResponse(mine.id, .success(Done()))) { $0.items = [] }
        await store.finish()
    }
}
