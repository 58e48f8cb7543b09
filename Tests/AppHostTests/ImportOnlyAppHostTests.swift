import AppHost
import Testing

/// This file imports AppHost alone, as a front end does: every type of the host's API must be
/// reachable from it (a name missing from its exports fails to compile here).
@Suite("Importing AppHost alone")
struct ImportOnlyAppHostTests {
    @Test func everyTypeTheHostsAPINamesIsInScope() async throws {
        var options = AppHost.Options(
            testClock: ManualClock(), history: HistoryLimits(), diagnostics: Diagnostics { _ in },
            live: LiveConfiguration())
        options.injectsFailures = true
        let host = try await AppHost(storage: .inMemory(), loginStyle: LoginStyle.adHoc, options: options)
        let style: LoginStyle = host.loginStyle
        let id: Note.ID? = host.screens.notes.rows.first?.id
        let action: AppFeature.Action = .counter(.incrementTapped)
        let store: RootStore<AppFeature.State, AppFeature.Action> = host.store
        let notes: NotesViewModel = host.notes
        let clients: AppEnvironment = host.environment
        host.failures.failNext(Endpoint.notesList)
        let error: DatabaseError? = AppHostError("x").database
        #expect(style == .adHoc && id == nil && error == nil)
        #expect(await host.perform(actions: [action], timeout: patience).screens.counter.count == 1)
        #expect(store.currentState.counter.count == 1 && notes.rows.isEmpty)
        _ = clients
        try await host.close()
    }
}
