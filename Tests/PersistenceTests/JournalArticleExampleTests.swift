import AppEnvironment
import Persistence
import Reducers
import StateStore
import TestSupport
import Testing

// The Persistence catalog's article "Persistence and the journal" shows these lines;
// DocumentationExampleTests finds each of its Swift examples here, so change them together.

@Suite("Persistence and the journal: the article's example")
struct JournalArticleExampleTests {
    let folder = TemporaryFolder()

    @Test func eachRunRestoresWhatTheRunBeforeDid() async throws {
        let path = folder.file("notes.sqlite")
        for run in 0..<3 {
            let database = try AppSchema.open(path)
            let environment = AppEnvironment.live(database: database)
            let journal = try Journal<AppFeature.State, AppFeature.Action>(database: database)
            let (state, replayed) = try journal.restore(from: AppFeature.State(), using: AppFeature(environment: environment))
            let store = RootStore(initialState: state, reducer: AppFeature(environment: environment))
            let recording = journal.record(store) { $0.carriesSecret } // a snapshot right after a password

            #expect(state.counter.count == run, "run \(run) restores every increment before it")
            #expect(replayed == 0, "each run closed its journal with its final state: nothing to replay")
            await store.send(.counter(.incrementTapped)).finish()

            await store.waitForEffects()
            recording.cancel()
            try journal.close(finalState: store.currentState) // one snapshot, no actions left to replay
            database.close()
        }
    }
}
