import AppEnvironment
import Foundation
import Models
import StateStore
import StateStoreTesting
import Testing

// The feature of the StateStore catalog's article "Writing a feature", built and tested here;
// DocumentationExampleTests finds each of the article's Swift examples in this file, so change
// them together.

struct Notes: Reducer {
    struct State: Equatable, Sendable {
        var items: IdentifiedArray<Note> = []
        var error: String?
    }

    enum Action: Equatable, Sendable {
        case addTapped(String)
        case saved(Note.ID, Outcome<Note>)
    }

    let client: NotesClient
    let token: AccessToken
    let uuid: UUIDGenerator
    let now: DateGenerator

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .addTapped(let text):
            let note = Note(id: Note.ID(uuid()), text: text, createdAt: now())
            state.items.append(note)
            state.error = nil
            return .run { send in
                let result = await Outcome { () throws(AppError) in try await client.create(token, note) }
                send(.saved(note.id, result))
            }
        case .saved(let id, .failure(let error)):
            state.items.remove(id: id)
            state.error = error.message
            return .none
        case .saved:
            return .none
        }
    }
}

@Suite("Writing a feature: the article's example")
struct WritingAFeatureExampleTests {
    @Test func addingANoteThatFailsToSaveRemovesIt() async {
        let milk = Note(id: Note.ID(UUID(sequence: 1)), text: "milk", createdAt: .distantPast)
        var client = NotesClient.failing()
        client.create = { _, _ throws(AppError) in throw .storage(reason: "the disk is full") }
        let feature = Notes(client: client, token: AccessToken("token"), uuid: .incrementing(), now: .constant(.distantPast))
        let store = TestStore(initialState: Notes.State(), reducer: feature)
        await store.send(.addTapped("milk")) { $0.items = [milk] }
        await store.receive(.saved(milk.id, .failure(.storage(reason: "the disk is full")))) {
            $0.items = []
            $0.error = "The disk is full. Nothing you typed was lost; retry when the problem is fixed."
        }
        await store.finish()
    }

    @Test func aSavedNoteStaysListed() async {
        let milk = Note(id: Note.ID(UUID(sequence: 1)), text: "milk", createdAt: .distantPast)
        var client = NotesClient.failing()
        client.create = { _, note in note }
        let feature = Notes(client: client, token: AccessToken("token"), uuid: .incrementing(), now: .constant(.distantPast))
        let store = TestStore(initialState: Notes.State(error: "an earlier failure"), reducer: feature)
        await store.send(.addTapped("milk")) {
            $0.items = [milk]
            $0.error = nil
        }
        await store.receive(.saved(milk.id, .success(milk)))
        await store.finish()
    }
}
