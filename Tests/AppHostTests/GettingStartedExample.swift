import AppHost
import Foundation
import Observation
import Synchronization
import Testing

// The AppHost catalog's landing-page example and its front-end article's view model read with
// Observation, built and run here; DocumentationExampleTests finds each of those Swift examples
// in this file, so change them together.

@Suite("The documentation's first steps with AppHost")
struct GettingStartedExampleTests {
    @Test func aDatabaseHostSignsUpAndInAndKeepsWhatItDid() async throws {
        let path = NSTemporaryDirectory() + "appcore-getting-started-\(UUID().uuidString).sqlite"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }

        let host = try await AppHost(storage: .database(path: path))
        _ = await host.perform(.signUp(username: "alice.liddell", password: "wonderland"))
        _ = await host.perform(.typeUsername(username: "alice.liddell"))
        _ = await host.perform(.typePassword(password: "wonderland"))
        let outcome = await host.perform(.signIn) // the notes are listed when it returns
        print(outcome.status, outcome.screens.notes.count)
        try await host.close()

        #expect(outcome.status == .completed)
        #expect(outcome.screens.session.username == "alice.liddell")
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"), "closed: nothing left in a write-ahead log")
    }

    @Test func aViewModelIsReadWithOrWithoutObservation() async throws {
        let host = try await AppHost(storage: .inMemory(), options: AppHost.Options(history: nil))
        var rendered: [NotesViewModel.Rows] = []
        func render(_ rows: NotesViewModel.Rows) { rendered.append(rows) }
        let redraws = Mutex(0)
        @Sendable func scheduleRedraw() { redraws.withLock { $0 += 1 } }

        let notes = host.notes
        withObservationTracking {
            render(notes.rows)
        } onChange: {
            scheduleRedraw()
        }
        print(notes.currentSnapshot.count) // read without registering for Observation

        #expect(rendered.count == 1 && rendered.first?.isEmpty == true)
        #expect(redraws.withLock { $0 } == 0)
        for intent: Intent in [
            .signUp(username: "alice.liddell", password: "wonderland"), .typeUsername(username: "alice.liddell"),
            .typePassword(password: "wonderland"), .signIn, .addNote(text: "milk"),
        ] {
            _ = await host.perform(intent, timeout: patience)
        }
        #expect(redraws.withLock { $0 } == 1, "a change to the rows read schedules one redraw")
        #expect(notes.currentSnapshot.count == 1)
        try await host.close()
    }
}
