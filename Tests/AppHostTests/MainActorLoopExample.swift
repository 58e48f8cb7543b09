import AppHost

// The main-actor front end of the AppHost catalog's article "Building a front end on AppHost", built here and run by MainActorLoopExampleTests; DocumentationExampleTests
// finds each copy in this file, so change them together.

@MainActor
final class NotesWindow {
    let host: AppHost
    private(set) var shown: Screens?
    private var drawing: Task<Void, Never>?

    init(host: AppHost) { self.host = host }

    /// Draws the screens as they are, then after every change: the user's own intents, the
    /// effects they started, and notes another process wrote to the same database.
    func open(draw: @escaping @MainActor (ScreensUpdate) -> Void) {
        drawing = Task {
            for await screens in host.changes() {
                draw(ScreensUpdate(screens, since: shown)) // only what changed since the last drawing
                shown = screens
            }
        }
    }

    /// What a button does: the main actor is free while the work runs.
    func add(_ text: String) async -> IntentOutcome.Status {
        await host.perform(.addNote(text: text)).status
    }

    func close() { drawing?.cancel() }
}
