import AppEnvironment
import Foundation
import Models
import Persistence
import StateStore
import TestSupport
import Testing

@Suite("Note changes on a database: numbered, read by the rows that changed, noticed across connections")
struct NoteChangesTests {
    let folder = TemporaryFolder()
    let credentials = Credentials(username: "alice.liddell", password: "wonderland")
    let base = Date(timeIntervalSince1970: 1_800_000_000)

    func environment(_ database: Database) -> AppEnvironment {
        AppEnvironment.live(
            database: database, configuration: LiveConfiguration(passwordIterations: 1_000, externalWriteInterval: .milliseconds(10)),
            uuid: .incrementing(), now: .constant(base))
    }

    func note(_ number: UInt64, _ text: String, at offset: Double = 0) -> Note {
        Note(id: Note.ID(UUID(sequence: number)), text: text, createdAt: base, updatedAt: base.addingTimeInterval(offset))
    }

    @Test func changesSinceACursorAreTheRowsWrittenAfterItAndTheRemovals() async throws {
        let live = environment(try AppSchema.open(folder.file("app.sqlite")))
        _ = try await live.auth.signUp(credentials)
        let token = try await live.auth.authenticate(credentials).token
        for number: UInt64 in 1...3 { _ = try await live.notes.create(token, note(number, "note \(number)", at: Double(number))) }
        let start = try await live.notes.changes(token, nil)
        #expect(start.isEmpty, "asking without a cursor gives only the cursor of now")

        _ = try await live.notes.update(token, note(2, "note 2, edited", at: 10))
        try await live.notes.delete(token, note(3, ""))
        _ = try await live.notes.create(token, note(4, "note 4", at: 11))
        let changes = try await live.notes.changes(token, start.cursor)
        #expect(changes.changed.map(\.text) == ["note 4", "note 2, edited"], "as they are now, newest first")
        #expect(changes.removed == [note(3, "").id])
        #expect(changes.cursor > start.cursor)

        let none = try await live.notes.changes(token, changes.cursor)
        #expect(none.isEmpty && none.cursor == changes.cursor)

        // A note deleted then created again is a change, not a removal.
        _ = try await live.notes.create(token, note(3, "note 3, back", at: 12))
        let back = try await live.notes.changes(token, changes.cursor)
        #expect(back.changed.map(\.text) == ["note 3, back"] && back.removed.isEmpty)
    }

    @Test func deletionsAreRememberedForAWindowOfChangesAndAReaderFurtherBehindGetsTheWholeList() async throws {
        let database = try AppSchema.open(folder.file("app.sqlite"))
        let live = AppEnvironment.live(
            database: database, configuration: LiveConfiguration(passwordIterations: 1_000, deletionWindow: 4),
            uuid: .incrementing(), now: .constant(base))
        _ = try await live.auth.signUp(credentials)
        let token = try await live.auth.authenticate(credentials).token
        for number: UInt64 in 1...10 { _ = try await live.notes.create(token, note(number, "note \(number)", at: Double(number))) }
        let old = try await live.notes.changes(token, nil)
        for number: UInt64 in 1...8 { try await live.notes.delete(token, note(number, "")) }
        let records = try database.read { db throws(DatabaseError) in try db.query("SELECT count(*) FROM note_removals") { $0.int(0) } }
        #expect(records == [4], "the records of the last 4 changes only, however many notes were deleted")

        let recent = try await live.notes.changes(token, NotesCursor(position: old.cursor.position + 5))
        #expect(!recent.replacesAll && recent.removed.count == 3, "a reader within the window gets the deletions after its cursor")
        let behind = try await live.notes.changes(token, old.cursor)
        #expect(behind.replacesAll, "deletions it would need are forgotten: the whole list instead")
        #expect(behind.changed.map(\.text) == ["note 10", "note 9"] && behind.removed.isEmpty)
        #expect(behind.cursor == recent.cursor)
    }

    @Test func deletingTheNoteChangedLastIsAChangeAfterIt() async throws {
        let live = environment(try AppSchema.open(folder.file("app.sqlite")))
        _ = try await live.auth.signUp(credentials)
        let token = try await live.auth.authenticate(credentials).token
        _ = try await live.notes.create(token, note(1, "milk"))
        _ = try await live.notes.create(token, note(2, "eggs"))
        let seen = try await live.notes.changes(token, nil)
        try await live.notes.delete(token, note(2, ""))
        let deleted = try await live.notes.changes(token, seen.cursor)
        #expect(deleted.removed == [note(2, "").id], "a reader that saw the note created sees it deleted")
        #expect(deleted.cursor > seen.cursor)
    }

    @Test func aWindowOfNoneStillKeepsTheNewestRecordSoChangeNumbersNeverGoBack() async throws {
        let live = AppEnvironment.live(
            database: try AppSchema.open(folder.file("app.sqlite")), configuration: LiveConfiguration(passwordIterations: 1_000, deletionWindow: 0),
            uuid: .incrementing(), now: .constant(base))
        _ = try await live.auth.signUp(credentials)
        let token = try await live.auth.authenticate(credentials).token
        _ = try await live.notes.create(token, note(1, "milk"))
        let before = try await live.notes.changes(token, nil)
        try await live.notes.delete(token, note(1, ""))
        let deleted = try await live.notes.changes(token, before.cursor)
        #expect(deleted.removed == [note(1, "").id] && deleted.cursor > before.cursor)
        _ = try await live.notes.create(token, note(2, "eggs"))
        let created = try await live.notes.changes(token, deleted.cursor)
        #expect(created.changed.map(\.text) == ["eggs"] && created.cursor > deleted.cursor)
    }

    @Test func anotherUsersChangesAreNotSeen() async throws {
        let live = environment(try AppSchema.open(folder.file("app.sqlite")))
        let bob = Credentials(username: "bob.builder", password: "canwefixit")
        _ = try await live.auth.signUp(credentials)
        _ = try await live.auth.signUp(bob)
        let alice = try await live.auth.authenticate(credentials).token
        let bobToken = try await live.auth.authenticate(bob).token
        let start = try await live.notes.changes(alice, nil)
        _ = try await live.notes.create(bobToken, note(1, "bob's"))
        #expect(try await live.notes.changes(alice, start.cursor).isEmpty)
    }

    @Test func writesOfAnotherConnectionWakeTheWatcherAndItsOwnDoNot() async throws {
        let path = folder.file("app.sqlite")
        let mine = environment(try AppSchema.open(path))
        let theirs = environment(try AppSchema.open(path))
        _ = try await mine.auth.signUp(credentials)
        let token = try await mine.auth.authenticate(credentials).token
        let theirToken = try await theirs.auth.authenticate(credentials).token
        let wakes = Locked(0)
        let watcher = Task {
            for await _ in mine.notes.externalWrites() { wakes.withLock { $0 += 1 } }
        }
        defer { watcher.cancel() }
        try await Task.sleep(for: .milliseconds(50))
        let before = wakes.withLock { $0 }
        _ = try await mine.notes.create(token, note(1, "mine"))
        try await Task.sleep(for: .milliseconds(100))
        #expect(wakes.withLock { $0 } == before, "its own write is not another's")
        _ = try await theirs.notes.create(theirToken, note(2, "theirs"))
        #expect(await eventually { wakes.withLock { $0 } > before })
    }
}
