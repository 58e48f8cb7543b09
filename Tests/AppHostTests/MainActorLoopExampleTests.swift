import AppHost
import Foundation
import Testing
import ViewModels

@Suite("The README's main-actor front end")
struct MainActorLoopExampleTests {
    @Test func theReadmeShowsTheExampleThatIsBuilt() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let source = try String(contentsOf: folder.appendingPathComponent("MainActorLoopExample.swift"), encoding: .utf8)
        let example = try #require(source.components(separatedBy: "// README:\n").last)
        let readme = try String(contentsOf: folder.appendingPathComponent("../../README.md"), encoding: .utf8)
        #expect(readme.contains("```swift\n" + example + "```\n"), "README.md's main-actor example differs from MainActorLoopExample.swift")
    }

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
