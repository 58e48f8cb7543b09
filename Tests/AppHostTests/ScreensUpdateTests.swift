import AppHost
import Foundation
import Models
import Testing
import ViewModels

/// Outcomes sent as what changed: a reader that applies each update holds exactly the screens,
/// and an update's size is the change's, whatever the number of notes.
@Suite("Screens updates")
struct ScreensUpdateTests {
    @Test func aReaderApplyingEachUpdateHoldsExactlyTheRows() async throws {
        let host = try await AppHost(storage: .inMemory())
        var shown: Screens?
        var reader: [NotesViewModel.Row] = []
        func perform(_ intent: Intent) async {
            let outcome = await host.perform(intent, timeout: patience)
            let update = outcome.update(since: shown)
            if let notes = update.screens.notes { reader = notes.applied(to: reader) }
            #expect(update.screens.changed == shown.map { outcome.screens.changed(since: $0) } ?? Screen.allCases)
            shown = outcome.screens
            #expect(reader == Array(outcome.screens.notes.rows), "after \(intent)")
        }
        for intent: Intent in [
            .signUp(username: "alice.liddell", password: "wonderland"), .typeUsername(username: "alice.liddell"),
            .typePassword(password: "wonderland"), .signIn,
        ] {
            await perform(intent)
        }
        for number in 0..<30 { await perform(.addNote(text: "note \(number)")) }
        let rows = Array(host.screens.notes.rows)
        await perform(.editNote(id: rows[17].id, text: "edited, so it moves to the top"))
        await perform(.deleteNote(id: rows[3].id))
        await perform(.selectNote(id: rows[20].id))
        await perform(.selectNote(id: rows[25].id))
        await perform(.searchNotes(query: "note 1"))
        await perform(.searchNotes(query: ""))
        await perform(.increment)
        #expect(reader.count == 29)
    }

    @Test func addingANoteToThousandsSendsItsRowsOnly() async throws {
        let host = try await AppHost(storage: .inMemory())
        for intent: Intent in [
            .signUp(username: "alice.liddell", password: "wonderland"), .typeUsername(username: "alice.liddell"),
            .typePassword(password: "wonderland"), .signIn,
        ] {
            _ = await host.perform(intent, timeout: patience)
        }
        for number in 0..<2_000 { _ = await host.perform(.addNote(text: "note \(number)"), timeout: patience) }
        let before = host.screens
        let outcome = await host.perform(.addNote(text: "one more"), timeout: patience)
        let update = outcome.update(since: before)
        guard case .changes(let upserted, let removed) = update.screens.notes?.rows else {
            Issue.record("an added note is a row change, not the whole list")
            return
        }
        // The new note on top, and the one it took the selection from.
        #expect(upserted.map(\.at) == [0, 1] && removed.isEmpty)
        #expect(update.screens.changed == [.notes])
        let bytes = try JSONEncoder().encode(update).count
        #expect(bytes < 4_096, "\(bytes) bytes for one row")
        // The whole outcome, for comparison, carries every row.
        #expect(try JSONEncoder().encode(outcome).count > 100 * bytes)
    }
}
