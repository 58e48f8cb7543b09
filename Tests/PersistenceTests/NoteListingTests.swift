import AppEnvironment
import Foundation
import Models
import Persistence
import Reducers
import StateStore
import TestSupport
import Testing

/// Which notes the list shows, and in what order, is one rule (`Notes.State.list`, in
/// `Note.isListed(before:)` order) whichever path brings a note: adding, editing, another
/// writer's change, a search that finds a note not listed yet, a reload. Each step of the table
/// goes through one path; after each the list is in that order, and after a reload it is what the
/// client lists, in memory and on a database alike.
@Suite("One listing rule")
struct NoteListingTests {
    let folder = TemporaryFolder()

    /// One way a note reaches the list.
    enum Step: CustomStringConvertible {
        case add(String)
        case edit(String, to: String)
        case otherWriterEdits(String, to: String)
        case otherWriterAdds(String)
        case search(String)
        case clearSearch
        case reload

        var description: String {
            switch self {
            case .add(let text): "add \(text)"
            case .edit(let text, let new): "edit \(text) to \(new)"
            case .otherWriterEdits(let text, let new): "another writer edits \(text) to \(new)"
            case .otherWriterAdds(let text): "another writer adds \(text)"
            case .search(let query): "search \(query)"
            case .clearSearch: "clear the search"
            case .reload: "reload"
            }
        }
    }

    static let steps: [Step] = [
        .add("alpha"), .add("bravo"), .add("charlie"), .reload,
        .edit("alpha", to: "alpha 2"), .otherWriterEdits("bravo", to: "bravo 2"), .otherWriterAdds("delta"),
        .search("delta"), .clearSearch, .edit("charlie", to: "charlie 2"), .reload,
    ]

    @Test(arguments: ["in memory", "on a database"])
    func everyPathListsNotesInTheOneOrder(_ storage: String) async throws {
        let environment =
            storage == "in memory"
            ? AppEnvironment.inMemory()
            : AppEnvironment.live(database: try Database(path: folder.file("notes.sqlite"), migrations: AppSchema.migrations))
        let credentials = Credentials(username: "alice.liddell", password: "wonderland")
        _ = try await environment.auth.signUp(credentials)
        let token = try await environment.auth.authenticate(credentials).token
        let store = RootStore(initialState: Notes.State(), reducer: Notes(environment: environment, token: token))
        func send(_ action: Notes.Action) async {
            #expect(await store.send(action).settle(timeout: patience), "\(action) settled")
        }
        func listed(_ text: String) throws -> Note {
            try #require(store.currentState.items.first { $0.note.text == text }?.note, "\(text) is listed")
        }
        await send(.listRequested)
        for step in Self.steps {
            switch step {
            case .add(let text): await send(.addTapped(text))
            case .edit(let text, let new): await send(.edited(try listed(text).id, new))
            case .otherWriterEdits(let text, let new):
                var note = try listed(text)
                note.text = new
                note.updatedAt = Date()
                _ = try await environment.notes.update(token, note)
                await send(.externalChangesNoticed)
            case .otherWriterAdds(let text):
                _ = try await environment.notes.create(token, Note(id: Note.ID(UUID()), text: text, createdAt: Date()))
            case .search(let query): await send(.searchQueryChanged(query))
            case .clearSearch: await send(.searchQueryChanged(""))
            case .reload: await send(.listRequested)
            }
            let notes = store.currentState.items.map(\.note)
            #expect(notes == notes.sorted { $0.isListed(before: $1) }, "after \(step): \(notes.map(\.text))")
            if case .reload = step {
                let stored = try await environment.notes.list(token)
                #expect(notes.map(\.id) == stored.map(\.id), "after \(step), as the client lists them: \(notes.map(\.text)) \(stored.map(\.text))")
            }
        }
        #expect(Set(store.currentState.items.map(\.note.text)) == ["alpha 2", "bravo 2", "charlie 2", "delta"])
    }
}
