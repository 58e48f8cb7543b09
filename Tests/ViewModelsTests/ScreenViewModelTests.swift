import AppEnvironment
import Foundation
import Models
import Observation
import Reducers
import StateStore
import StateStoreTesting
import TestSupport
import Testing
import ViewModels

@Suite("Counter view model")
struct CounterViewModelTests {
    @Test func countAndWhetherItCanGoDown() {
        let app = AppHarness()
        let counter = CounterViewModel(appStore: app.store)
        #expect(counter.count == 0 && !counter.canDecrement)
        counter.increment()
        counter.increment()
        #expect(counter.count == 2 && counter.canDecrement)
        counter.decrement()
        counter.reset()
        #expect(counter.snapshot == CounterViewModel.Snapshot(Counter.State(count: 0)))
        #expect(app.takeActions() == [.counter(.incrementTapped), .counter(.incrementTapped), .counter(.decrementTapped), .counter(.resetTapped)])
    }

    @Test func observationFiresOnlyForTheCount() async {
        let app = AppHarness()
        let counter = CounterViewModel(appStore: app.store)
        let changes = ChangeCounter { _ = counter.count }
        app.store.send(.login(.usernameChanged("someone")))
        counter.decrement() // rejected at zero: nothing changes
        #expect(changes.changes == 0)
        counter.increment()
        #expect(await eventually { changes.changes == 1 })
    }
}

@Suite("Observations sequence")
struct ObservationsSequenceTests {
    @Test func aFrontEndCanFollowAViewModelAsAnAsyncSequence() async {
        guard #available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *) else { return }
        let app = AppHarness()
        let counter = CounterViewModel(appStore: app.store)
        let counts = Observations { counter.count }
        var seen: [Int] = []
        for await count in counts {
            seen.append(count)
            if count < 3 { counter.increment() } else { break }
        }
        #expect(seen == [0, 1, 2, 3])
    }
}

@Suite("Session view model")
struct SessionViewModelTests {
    @Test func signedOutSignedInAndSignedOutAgain() async {
        let app = AppHarness()
        let session = SessionViewModel(appStore: app.store)
        #expect(!session.isSignedIn && session.username == nil && session.displayName == nil && session.message == nil)
        session.signUp(username: "bob.builder", password: "canwefixit")
        await app.settle()
        #expect(session.message == "Account “bob.builder” created. Sign in with it.")
        session.signUp(username: "bob.builder", password: "canwefixit")
        await app.settle()
        #expect(session.message == AppError.usernameTaken("bob.builder").message)
        await app.signIn()
        #expect(session.isSignedIn && session.username == "alice.liddell" && session.displayName == "alice.liddell")
        session.signOut()
        await app.settle()
        #expect(!session.isSignedIn && session.username == nil)
        #expect(app.takeActions().first == .session(.signOutTapped))
    }

    @Test func aSignInWaitingForItsAccountSaysSo() {
        var state = Session.State(signUp: .inProgress("bob.builder"))
        #expect(SessionViewModel.Snapshot(state, signedIn: nil).message == "Creating the account “bob.builder”…")
        state.signInAwaitsSignUp = true
        #expect(SessionViewModel.Snapshot(state, signedIn: nil).message == "Creating the account “bob.builder”… Signing in once it is made.")
        state = Session.State(signUp: .succeeded(User(id: User.ID(UUID(sequence: 1)), username: "alice.liddell")))
        #expect(SessionViewModel.Snapshot(state, signedIn: nil).message == "Account “alice.liddell” created. Sign in with it.")
        #expect(SessionViewModel.Snapshot(state, signedIn: nil, isSigningIn: true).message == "Account “alice.liddell” created. Signing in…")
    }
}

@Suite("Profile view model")
struct ProfileViewModelTests {
    @Test func statusRowsAndCountThroughLoadingFailureAndRetry() async throws {
        let app = AppHarness(latency: .milliseconds(10))
        let profile = ProfileViewModel(appStore: app.store)
        #expect(profile.status == .initialized && profile.rows.isEmpty && profile.postCount == 0 && !profile.canAddPost)

        app.failures.failNext(.profileLoadPosts)
        app.store.send(.login(.usernameChanged("alice.liddell")))
        app.store.send(.login(.passwordChanged("wonderland")))
        app.store.send(.login(.signInTapped))
        #expect(await app.clock.untilSleeping())
        await app.clock.advance(by: .milliseconds(10)) // signed in: profile and posts loading
        #expect(await eventually { profile.status == .loading })
        #expect(profile.rows == [.loading])
        await app.settle()
        #expect(profile.status == .failed)
        let header = ProfileViewModel.Row.header(displayName: "alice.liddell", username: "alice.liddell", bio: "")
        let failure = AppError.network(reason: "simulated failure of profile.loadPosts").message
        #expect(profile.rows == [header, .error(message: failure, canRetry: true)])

        _ = app.takeActions()
        profile.retry() // only the posts failed: only they reload
        let retried = app.takeActions()
        #expect(retried.contains(.posts(.load)))
        #expect(!retried.contains(.profile(.load)))
        await app.settle()
        #expect(profile.status == .loaded && profile.rows == [header] && profile.postCount == 0 && profile.canAddPost)

        profile.addPost("Hello, world")
        #expect(profile.rows == [header, .draft(text: "Hello, world", isSending: true, errorMessage: nil)])
        #expect(!profile.canAddPost)
        await app.settle()
        #expect(profile.postCount == 1)
        guard case .post(_, let text, let publishedAt) = profile.rows.last else {
            Issue.record("expected a post row, got \(profile.rows)")
            return
        }
        #expect(text == "Hello, world" && publishedAt == "2027-01-15 08:00 UTC")
    }

    @Test func anExpiredSessionCannotBeRetried() {
        let snapshot = ProfileViewModel.Snapshot(profile: .failed(.sessionExpired), posts: Posts.State(phase: .initialized))
        #expect(snapshot.status == .failed)
        #expect(snapshot.rows == [.error(message: AppError.sessionExpired.message, canRetry: false)])
    }
}

@Suite("Notes view model")
struct NotesViewModelTests {
    @Test func rowsSelectionSearchAndEmptyStates() async throws {
        let app = AppHarness(latency: .milliseconds(10))
        let notes = NotesViewModel(appStore: app.store)
        #expect(notes.isEmpty && notes.count == 0 && notes.emptyMessage == "No notes yet. Add one to get started.")
        await app.signIn()
        await app.settle()
        #expect(notes.emptyMessage == "No notes yet. Add one to get started.")

        notes.add("Groceries\n  milk,   eggs\nbread")
        let first = try #require(notes.rows.first)
        #expect(first.title == "Groceries" && first.preview == "milk, eggs bread")
        #expect(first.isSelected && first.isPending && !first.isUnsaved)
        #expect(notes.selectedID == first.id && notes.selectedText == "Groceries\n  milk,   eggs\nbread")
        #expect(first.updatedAt == "2027-01-15 08:00 UTC")
        await app.settle()
        #expect(notes.rows.first?.isPending == false)

        app.failures.failNext(.notesCreate)
        notes.add("")
        await app.settle()
        let blank = try #require(notes.rows.first)
        #expect(blank.title == "New note" && blank.isUnsaved && !blank.isPending)
        #expect(blank.unsavedReason == AppError.network(reason: "simulated failure of notes.create").message)
        notes.retrySave(blank.id)
        await app.settle()
        #expect(notes.rows.first?.isUnsaved == false)
        #expect(notes.count == 2)

        notes.select(first.id)
        #expect(notes.rows.map(\.isSelected) == [false, true])
        notes.search("milk")
        #expect(notes.isSearching && notes.searchQuery == "milk")
        await app.settle()
        #expect(notes.rows.map(\.id) == [first.id] && notes.count == 1)
        notes.search("zebra")
        await app.settle()
        #expect(notes.isEmpty && notes.emptyMessage == "No notes match “zebra”.")
        notes.search("")
        #expect(notes.count == 2)

        app.failures.failNext(.notesDelete)
        notes.delete(first.id)
        await app.settle()
        #expect(notes.errorMessage == AppError.network(reason: "simulated failure of notes.delete").message)
        notes.dismissError()
        #expect(notes.errorMessage == nil)
        notes.edit(first.id, text: "Groceries\noat milk")
        await app.settle()
        #expect(notes.rows.first?.preview == "oat milk")
        notes.delete(first.id)
        await app.settle()
        #expect(notes.count == 1 && notes.selectedID == nil && notes.selectedText == nil)
    }

    @Test func intentsSendTheirActions() {
        let app = AppHarness()
        let notes = NotesViewModel(appStore: app.store)
        let id = Note.ID(UUID(sequence: 5))
        notes.add("a")
        notes.edit(id, text: "b")
        notes.delete(id)
        notes.select(id)
        notes.search("q")
        notes.retrySave(id)
        notes.reload()
        notes.dismissError()
        #expect(
            app.takeActions() == [
                .notes(.addTapped("a")), .notes(.edited(id, "b")), .notes(.deleteTapped(id)), .notes(.selected(id)),
                .notes(.searchQueryChanged("q")), .notes(.retrySaveTapped(id)), .notes(.listRequested), .notes(.errorDismissed),
            ])
    }

    @Test func observationIgnoresChangesElsewhere() async {
        let app = AppHarness()
        await app.signIn()
        await app.settle()
        let notes = NotesViewModel(appStore: app.store)
        let changes = ChangeCounter { _ = notes.rows }
        app.store.send(.counter(.incrementTapped))
        app.store.send(.posts(.load))
        #expect(changes.changes == 0)
        notes.add("milk")
        #expect(await eventually { changes.changes >= 1 })
    }

    @Test func datesReadAsTheGregorianCalendarInUTC() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        // From 1600 to 2400, leap days and times just before midnight included.
        var seconds = -11_676_096_000.0
        while seconds < 13_569_465_600 {
            let date = Date(timeIntervalSince1970: seconds)
            let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
            let expected = String(format: "%04d-%02d-%02d %02d:%02d UTC", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0, parts.hour ?? 0, parts.minute ?? 0)
            let state = Notes.State(items: [Notes.Item(note: Note(id: Note.ID(UUID(sequence: 1)), text: "x", createdAt: date))])
            #expect(NotesViewModel.Snapshot(state).rows.first?.updatedAt == expected, "at \(seconds)")
            seconds += 86_399.5 * 13.7
        }
    }

    @Test func titlesAndPreviewsReadLikeTheirCharacterByCharacterDefinition() {
        // The reference: the first line with text, trimmed; the rest after the first line; both
        // on one line with whitespace runs collapsed and cut at 60 characters.
        func oneLine(_ text: some StringProtocol) -> String {
            let collapsed = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            return collapsed.count > 60 ? String(collapsed.prefix(59)) + "…" : collapsed
        }
        func title(_ text: String) -> String {
            text.split(whereSeparator: \.isNewline).lazy
                .map { $0.drop { $0.isWhitespace && !$0.isNewline } }
                .map { String($0.reversed().drop { $0.isWhitespace && !$0.isNewline }.reversed()) }
                .first { !$0.isEmpty } ?? ""
        }
        let pieces = ["milk", " ", "  ", "\t", "\n", "\r\n", "é", "\u{00A0}", "\u{2028}", "eggs and bread", String(repeating: "long ", count: 20), "🍞"]
        var random = SeededRandom(seed: 11)
        for _ in 0..<2_000 {
            let text = (0..<8).map { _ in pieces.randomElement(using: &random) ?? "" }.joined()
            let note = Note(id: Note.ID(UUID(sequence: 1)), text: text, createdAt: Date(timeIntervalSince1970: 0))
            #expect(note.title == title(text), "title of \(text.debugDescription)")
            let row = NotesViewModel.Snapshot(Notes.State(items: [Notes.Item(note: note)])).rows[0]
            #expect(row.title == (title(text).isEmpty ? "New note" : oneLine(title(text))), "row title of \(text.debugDescription)")
            #expect(row.preview == oneLine(text.drop { $0.isWhitespace }.drop { !$0.isNewline }), "preview of \(text.debugDescription)")
        }
    }

    @Test func rowsOfTenThousandNotesAreBuiltOnlyWhenRead() {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        var state = Notes.State(
            items: IdentifiedArray(
                uniqueElements: (1...10_000).map {
                    Notes.Item(note: Note(id: Note.ID(UUID(sequence: $0)), text: "note \($0)\nbody", createdAt: start))
                }))
        let before = NotesViewModel.Snapshot(state)
        state.items.modify(id: Note.ID(UUID(sequence: 7_000))) { $0.note.text = "changed" }
        state.selectedID = Note.ID(UUID(sequence: 2))
        let after = NotesViewModel.Snapshot(state)
        #expect(after.count == 10_000 && after.rows[6_999].title == "changed" && after.rows[1].isSelected)
        #expect(before != after)
        #expect(Set(after.rows.changedIDs(since: before.rows) ?? []) == [Note.ID(UUID(sequence: 7_000)), Note.ID(UUID(sequence: 2))])
        #expect(Array(after.rows.prefix(3)).map(\.title) == ["note 1", "note 2", "note 3"])
        #expect(NotesViewModel.Rows(Array(after.rows)) == after.rows, "built rows equal the rows they were built from")
        state.selectedID = nil
        #expect(NotesViewModel.Snapshot(state).rows != after.rows, "the selection shows on a row")
    }

    @Test func aCurrentSnapshotIsTheSnapshotReadWithoutObserving() async {
        let app = AppHarness()
        await app.signIn()
        await app.settle()
        let notes = NotesViewModel(appStore: app.store)
        let untracked = ChangeCounter { _ = notes.currentSnapshot }
        let tracked = ChangeCounter { _ = notes.snapshot }
        notes.add("milk")
        await app.settle()
        #expect(notes.currentSnapshot == notes.snapshot && notes.currentSnapshot.count == 1)
        #expect(await eventually { tracked.changes >= 1 })
        #expect(untracked.changes == 0, "reading currentSnapshot registers nothing")
    }

    @Test func snapshotsAreCodable() throws {
        let snapshot = NotesViewModel.Snapshot(
            Notes.State(items: [Notes.Item(note: Note(id: Note.ID(UUID(sequence: 1)), text: "x", createdAt: Date(timeIntervalSince1970: 0)))]))
        let decoded = try JSONDecoder().decode(NotesViewModel.Snapshot.self, from: JSONEncoder().encode(snapshot))
        #expect(decoded == snapshot)
        #expect(decoded.rows.first?.updatedAt == "1970-01-01 00:00 UTC")
    }
}

/// A search's rows are told from the rows before, and always list what rows made afresh list.
@Suite("Notes view model, rows of a search")
struct NotesSearchRowsTests {
    /// The notes' state set whole by each `set`: a state the reducer would not make (a result
    /// that is not listed) as well as one it would.
    struct Holder: Reducer {
        struct State: Equatable, Sendable { var notes = Notes.State() }
        enum Action: Sendable {
            case set(Notes.State)
            case notes(Notes.Action)
        }

        func reduce(into state: inout State, action: Action) -> Effect<Action> {
            if case .set(let notes) = action { state.notes = notes }
            return .none
        }
    }

    static func note(_ number: Int) -> Notes.Item {
        Notes.Item(note: Note(id: Note.ID(UUID(sequence: UInt64(number))), text: "note \(number)", createdAt: Date(timeIntervalSince1970: Double(number))))
    }

    /// What a list shows is derived once, from `Notes.State.visibleItems` and `shownCount`: the
    /// rows a screen lists (which the console's `@N` counts), the count it says, and whether a
    /// page more is given, for lists and searches, read whole or in part, with a match no longer
    /// listed.
    @Test func rowsCountAndPagingReadOneDerivedList() {
        let notes = Notes(environment: .noop(), token: AccessToken("token"))
        var states: [(String, Notes.State)] = []
        for held in [0, 5, 45] {
            var state = Notes.State(items: IdentifiedArray(uniqueElements: (0..<held).reversed().map(Self.note)))
            for total in [nil, held, held + 30] {
                for rowLimit in [Notes.pageSize, Notes.pageSize * 3] {
                    state.listTotal = total
                    state.rowLimit = rowLimit
                    state.searchResults = nil
                    state.searchTotal = nil
                    states.append(("\(held) held of \(String(describing: total)), \(rowLimit) promised", state))
                    // A search's matches, one of them not listed (deleted meanwhile).
                    state.searchResults = (0..<held).filter { $0 % 2 == 0 }.map { Self.note($0).id } + [Self.note(999).id]
                    state.searchTotal = total.map { $0 / 2 + 1 }
                    states.append(("a search of \(held) held, \(rowLimit) promised", state))
                }
            }
        }
        for (name, state) in states {
            let snapshot = NotesViewModel.Snapshot(state)
            #expect(snapshot.rows.map(\.id) == state.visibleItems.map(\.id), "\(name): the rows")
            #expect(snapshot.count == state.shownCount && snapshot.count >= snapshot.rows.count, "\(name): the count")
            var paged = state
            _ = notes.reduce(into: &paged, action: .moreRowsRequested)
            #expect((paged.rowLimit > state.rowLimit) == (state.rowLimit < snapshot.count), "\(name): a page more")
        }
    }

    @Test func rowsToldFromTheRowsBeforeListWhatRowsMadeAfreshList() {
        let store = RootStore(initialState: Holder.State(), reducer: Holder())
        let notes = NotesViewModel(store: store.scope(state: \.notes, action: Holder.Action.notes))
        var state = Notes.State(items: IdentifiedArray(uniqueElements: (1...300).reversed().map(Self.note)))
        let results = (1...300).filter { $0 % 3 != 0 }.map { Self.note($0).id }
        state.searchResults = results
        var steps: [(String, Notes.State)] = [("a search shown", state)]
        state.items.insert(Self.note(301), at: 0)
        steps.append(("a note that is not a result added", state))
        state.items.remove(id: Self.note(4).id)
        steps.append(("a result no longer listed", state))
        state.items.modify(id: Self.note(5).id) { $0.note.text = "note 5, edited" }
        steps.append(("a result edited", state))
        state.items.insert(Self.note(4), at: 10)
        steps.append(("the result listed again", state))
        state.items = IdentifiedArray(uniqueElements: state.items.filter { $0.note.id != Self.note(7).id })
        steps.append(("the list loaded anew", state))
        state.searchResults = Array(results.prefix(10))
        steps.append(("another search", state))
        state.items.remove(id: Self.note(8).id)
        steps.append(("a result of it no longer listed", state))
        for (step, state) in steps {
            store.send(.set(state))
            let fresh = NotesViewModel.Snapshot(state)
            #expect(notes.rows.map(\.id) == fresh.rows.map(\.id), "\(step)")
            #expect(notes.count == fresh.count && notes.snapshot == fresh, "\(step)")
            // Rows are found by id through positions kept beside them: they must follow the rows.
            let ids = fresh.rows.map(\.id)
            for id in (state.searchResults ?? []) + [Self.note(301).id] {
                #expect(notes.rows.index(id: id) == ids.firstIndex(of: id), "\(step): \(id)")
            }
        }
        #expect(notes.count == 8)
    }
}
