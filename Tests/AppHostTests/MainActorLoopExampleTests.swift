import AppHost
import Foundation
import Testing
import ViewModels

@Suite("The documentation's main-actor front end")
struct MainActorLoopExampleTests {
    @MainActor
    @Test func itDrawsTheScreensThenWhatEachIntentChanged() async throws {
        var options = AppHost.Options(history: nil)
        options.observation = .mainActor
        let host = try await AppHost(storage: .inMemory(), options: options)
        for intent: Intent in [
            .signUp(username: "alice.liddell", password: "wonderland"), .typeUsername(username: "alice.liddell"),
            .typePassword(password: "wonderland"), .signIn,
        ] {
            _ = await host.perform(intent, timeout: patience)
        }
        let window = NotesWindow(host: host)
        var drawn: [ScreensUpdate] = []
        var rows: [NotesViewModel.Row] = []
        window.open { update in
            drawn.append(update)
            if let notes = update.notes { rows = notes.applied(to: rows) }
        }
        while drawn.isEmpty { await Task.yield() }
        #expect(drawn.first?.changed == Screen.allCases, "the first drawing is every screen")
        #expect(await window.add("milk") == .completed)
        while rows.isEmpty { await Task.yield() }
        #expect(rows.map(\.title) == ["milk"])
        #expect(drawn.dropFirst().allSatisfy { !$0.changed.isEmpty }, "a drawing only when something changed")
        window.close()
        try await host.close()
    }
}
