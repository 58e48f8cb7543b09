import AppEnvironment
import Foundation
import Models
import Persistence
import TestSupport
import Testing

/// A change to a note is based on the version its writer saw: another writer's change since is a
/// conflict, the writer's own quick succession of changes is not. The same in memory and on a
/// database, where two environments on one file are two processes.
@Suite("Note versions: conflicts between writers, none within one")
struct NoteVersionTests {
    let folder = TemporaryFolder()
    let credentials = Credentials(username: "alice.liddell", password: "wonderland")
    let base = Date(timeIntervalSince1970: 1_800_000_000)

    /// Two writers of one store, and a token both act for.
    func writers(live: Bool) async throws -> (NotesClient, NotesClient, AccessToken) {
        let (first, second): (AppEnvironment, AppEnvironment)
        if live {
            let path = folder.file("app.sqlite")
            first = .live(database: try AppSchema.open(path), configuration: .testing, uuid: .incrementing(), now: .constant(base))
            second = .live(database: try AppSchema.open(path), configuration: .testing, uuid: .incrementing(), now: .constant(base))
        } else {
            let backend = InMemoryBackend()
            first = .inMemory(backend: backend)
            second = .inMemory(backend: backend)
        }
        _ = try await first.auth.signUp(credentials)
        let token = try await first.auth.authenticate(credentials).token
        return (first.notes, second.notes, token)
    }

    func note(_ text: String) -> Note {
        Note(id: Note.ID(UUID(sequence: 7)), text: text, createdAt: base)
    }

    @Test(arguments: [false, true])
    func anotherWritersEditOrDeleteSinceIsAConflictNamingWhatIsStored(live: Bool) async throws {
        let (mine, theirs, token) = try await writers(live: live)
        let seen = try await mine.create(token, note("milk"))
        var their = seen
        their.text = "oat milk"
        their = try await theirs.update(token, their)

        var edit = seen
        edit.text = "soy milk"
        await #expect(throws: AppError.conflict(.changed(their))) { try await mine.update(token, edit) }
        await #expect(throws: AppError.conflict(.changed(their))) { try await mine.delete(token, seen) }
        #expect(try await mine.list(token) == [their], "nothing of the refused changes is stored")

        // Overwriting on purpose: based on their version.
        edit.version = their.version
        let overwritten = try await mine.update(token, edit)
        #expect(try await theirs.list(token) == [overwritten])

        try await theirs.delete(token, overwritten)
        edit.text = "rice milk"
        edit.version = overwritten.version
        await #expect(throws: AppError.conflict(.deleted(edit.id))) { try await mine.update(token, edit) }
        try await mine.delete(token, overwritten) // gone already: what a delete asks for
    }

    @Test(arguments: [false, true])
    func aWritersOwnChangesSentBeforeHearingBackAreNotConflicts(live: Bool) async throws {
        let (mine, theirs, token) = try await writers(live: live)
        let created = try await mine.create(token, note("milk"))
        // Edit, edit, delete, each based on the version the app knew when it sent it.
        var first = created
        first.text = "oat milk"
        var second = created
        second.text = "oat milk, 2 l"
        let stored = try await mine.update(token, first)
        let storedAgain = try await mine.update(token, second)
        #expect(storedAgain.version ?? 0 > stored.version ?? 0)
        var third = stored // heard back from the first only
        third.text = "oat milk, 3 l"
        _ = try await mine.update(token, third)
        try await mine.delete(token, created)
        #expect(try await mine.list(token).isEmpty)

        // The other writer's edit between two of mine ends my run: my stale base is a conflict again.
        let again = try await mine.create(token, note("eggs"))
        var their = again
        their.text = "brown eggs"
        their = try await theirs.update(token, their)
        var mineStale = again
        mineStale.text = "white eggs"
        await #expect(throws: AppError.conflict(.changed(their))) { try await mine.update(token, mineStale) }
    }

    @Test(arguments: [false, true])
    func anIdThatWasNeverTheUsersIsNotFoundNotAConflict(live: Bool) async throws {
        let (mine, _, token) = try await writers(live: live)
        var stranger = note("never stored")
        stranger.version = 3
        await #expect(throws: AppError.notFound(.note, id: stranger.id.description)) { try await mine.update(token, stranger) }
    }
}
