import AppEnvironment
import AppHost
import Foundation
import Persistence
import TestSupport
import Testing

/// The notes table is the one copy of a stored note: the journal names stored notes by id and
/// version, and keeps only what the session alone knows, such as a note's unsaved text.
@Suite("The journal holds no stored note's text")
struct JournalHoldsNoStoredTextTests {
    @Test func afterSigningInToTwoThousandNotesSearchingAndClosingOnlyUnsavedTextIsJournaled() async throws {
        let folder = TemporaryFolder("appcore-journal-refs")
        let path = folder.file("app.sqlite")
        var options = AppHost.Options(history: nil, live: .testing)
        options.injectsFailures = true
        let host = try await AppHost(storage: .database(path: path), options: options)
        #expect(await host.perform(.signUp(username: "alice.liddell", password: "wonderland"), timeout: patience).status == .completed)
        // 2,000 notes stored by another connection, each text its own.
        let other = try Database(path: path, migrations: AppSchema.migrations)
        let clients = AppEnvironment.live(database: other, configuration: .testing)
        let token = try await clients.auth.authenticate(Credentials(username: "alice.liddell", password: "wonderland")).token
        for number in 0..<2_000 {
            let note = Note(id: Note.ID(UUID()), text: "stored text \(number) marker", createdAt: Date(timeIntervalSince1970: 1_800_000_000 + Double(number)))
            _ = try await clients.notes.create(token, note)
        }
        other.close()
        for intent: Intent in [.typeUsername(username: "alice.liddell"), .typePassword(password: "wonderland"), .signIn, .searchNotes(query: "marker")] {
            #expect(await host.perform(intent, timeout: patience).status == .completed, "\(intent)")
        }
        #expect(host.screens.notes.count == 2_000)
        _ = await host.perform(.searchNotes(query: ""), timeout: patience)
        host.failures.failNext(.notesCreate)
        #expect(await host.perform(.addNote(text: "typed, never stored"), timeout: patience).status != .completed)
        try await host.close()

        let database = try Database(readingOnly: path, migrations: AppSchema.migrations)
        let documents = try database.read { db throws(DatabaseError) in
            try db.query("SELECT actions FROM journal") { $0.blob(0) } + db.query("SELECT state FROM snapshots") { $0.blob(0) }
        }
        database.close()
        let journaled = documents.map { String(decoding: $0, as: UTF8.self) }
        #expect(!documents.isEmpty)
        #expect(!journaled.contains { $0.contains("stored text") }, "a stored note's text is in the journal")
        #expect(journaled.contains { $0.contains("typed, never stored") }, "the unsaved text is the session's own")
        #expect(documents.map(\.count).reduce(0, +) < 20_000, "the journal does not grow with the notes")

        // A restart signs the session out; the unsaved note comes back with its owner's sign in.
        let again = try await AppHost(storage: .database(path: path), options: AppHost.Options(history: nil, live: .testing))
        for intent: Intent in [.typeUsername(username: "alice.liddell"), .typePassword(password: "wonderland"), .signIn] {
            _ = await again.perform(intent, timeout: patience)
        }
        let unsaved = again.screens.notes.rows.first { $0.title == "typed, never stored" }
        #expect(unsaved?.isUnsaved == true)
        #expect(again.screens.notes.count == 2_001)
        try await again.close()
    }
}
