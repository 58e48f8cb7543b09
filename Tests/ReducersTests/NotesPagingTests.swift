import AppEnvironment
import Foundation
import Models
import Reducers
import StateStore
import StateStoreTesting
import TestSupport
import Testing

/// The notes state holds what a screen shows: the list's or the search's pages read so far and
/// how many there are in all, never every stored note; a page more is read when the reader asks.
@Suite("Notes, a page at a time")
struct NotesPagingTests {
    let clock = TestClock()
    /// 120 stored notes, note 120 the most recently changed; those divisible by 3 hold "three".
    static let stored: [Note] = (1...120).reversed().map { (number: Int) -> Note in
        let text = number % 3 == 0 ? "three \(number)" : "note \(number)"
        return note(UInt64(number), text, updated: Double(number))
    }

    func store(_ state: Notes.State = Notes.State(), total: Locked<Int>? = nil) -> TestStore<Notes.State, Notes.Action> {
        var environment = failingEnvironment(clock: clock)
        environment.notes.list = { _ in Self.stored }
        environment.notes.search = { _, query in Self.stored.filter { $0.matches(query) } }
        environment.notes.changes = { _, _ in NoteChanges(cursor: NotesCursor(position: 1), total: total?.withLock { $0 }) }
        environment.notes.create = { _, note in
            var stored = note
            stored.version = 1
            return stored
        }
        let store = TestStore(initialState: state, reducer: Notes(environment: environment, token: aliceToken))
        store.exhaustivity = .off
        return store
    }

    @Test func theListIsReadAPageAtATimeAndCountedWhole() async {
        let store = store()
        await store.send(.listRequested).finish()
        store.skipReceivedActions()
        #expect(store.state.items.map(\.note) == Array(Self.stored.prefix(50)))
        #expect(store.state.total == 120 && store.state.listEnd == NotesPosition(Self.stored[49]))
        await store.send(.moreRowsRequested).finish()
        store.skipReceivedActions()
        #expect(store.state.items.map(\.note) == Array(Self.stored.prefix(100)) && store.state.rowLimit == 100)
        await store.send(.moreRowsRequested).finish()
        store.skipReceivedActions()
        #expect(store.state.items.map(\.note) == Self.stored && store.state.listEnd == nil)
        await store.send(.moreRowsRequested)
        #expect(store.state.rowLimit == 150, "every row is shown: nothing more to read")
    }

    @Test func aSearchReadsItsFirstPageAndCountsEveryMatchThenLeavesWithItsPages() async {
        let store = store()
        await store.send(.listRequested).finish()
        store.skipReceivedActions()
        await store.send(.searchSubmitted("three")).finish()
        store.skipReceivedActions()
        let matches = Self.stored.filter { $0.matches("three") }
        #expect(store.state.visibleItems.map(\.note) == Array(matches.prefix(40)), "40 of the first 50 rows' page of matches")
        #expect(store.state.total == 40)
        // Matches beyond the list's first page are held while the search is shown, not after.
        #expect(store.state.items.count > 50)
        await store.send(.searchSubmitted("")).finish()
        #expect(store.state.items.map(\.note) == Array(Self.stored.prefix(50)))
        #expect(store.state.total == 120)
    }

    @Test func changesMadeElsewhereEnterThePartReadAndTheTotalFollowsTheStore() async {
        let total = Locked(120)
        let store = store(total: total)
        await store.send(.listRequested).finish()
        store.skipReceivedActions()
        // Another process adds a note (at the top) and changes one beyond the first page.
        let added = note(500, "from elsewhere", updated: 500)
        var old = Self.stored[100]
        old.text = "changed elsewhere"
        total.withLock { $0 = 121 }
        await store.send(
            .changesResponse(since: NotesCursor(position: 1), .success(NoteChanges(changed: [added, old], cursor: NotesCursor(position: 2), total: 121))))
        #expect(store.state.items.first?.note == added)
        #expect(store.state.items[id: old.id] == nil, "beyond the part read: it comes with its page")
        // Within a few rows past the page, the page grows; the count follows the store.
        #expect(store.state.total == 121 && store.state.items.count == 51)
        #expect(store.state.listEnd == NotesPosition(Self.stored[49]))
    }

    @Test func notesAddedAboveAPageKeepTheHeldRowsToThePage() async {
        let store = store()
        await store.send(.listRequested).finish()
        store.skipReceivedActions()
        for number in 0..<30 {
            await store.send(.inserted(note(UInt64(1_000 + number), "added \(number)", updated: Double(1_000 + number)))).finish()
        }
        store.skipReceivedActions()
        let held = store.state.items
        // Trimmed back to the page (and the note open) once it ran a few rows past it, at the
        // 17th add: 16 added and saved, 34 of the stored; 13 added since.
        #expect(held.count == 64 && held.count <= Notes.pageSize + Notes.trimSlack + 1)
        #expect(held.first?.note.text == "added 29" && store.state.total == 150)
        #expect(store.state.listEnd == NotesPosition(Self.stored[33]), "the end of the part read moved up")
        // Reading on starts after it.
        await store.send(.moreRowsRequested).finish()
        store.skipReceivedActions()
        #expect(store.state.items.count == 100 && store.state.items.last?.note == Self.stored[69])
    }
}
