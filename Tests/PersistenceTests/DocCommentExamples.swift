import AppEnvironment
import Persistence
import Reducers
import StateStore
import TestSupport
import Testing

// The Swift examples of Persistence's doc comments (its symbol pages), run here;
// DocumentationExampleTests finds each of them in this file, so change a doc comment's example
// and its copy here together.

@Suite("Doc comments' examples: Persistence")
struct PersistenceDocCommentExampleTests {
    let folder = TemporaryFolder()

    @Test func aDatabaseMigratesWritesAndReads() throws {
        let path = folder.file("items.sqlite")
        let items = Migration(version: 1, name: "items", sql: "CREATE TABLE items (id INTEGER PRIMARY KEY, text TEXT NOT NULL)")
        let database = try Database(path: path, migrations: [items])
        try database.write { db throws(DatabaseError) in
            try db.execute("INSERT INTO items (text) VALUES (?)", [.text("milk")])
        }
        let texts = try database.read { db throws(DatabaseError) in try db.query("SELECT text FROM items") { $0.text(0) } }
        #expect(texts == ["milk"])
        database.close()
    }

    @Test func aJournalRecordsTheAppsStore() async throws {
        let database = try AppSchema.open(folder.file("app.sqlite"))
        let env = AppEnvironment.inMemory()
        let journal = try Journal<AppFeature.State, AppFeature.Action>(database: database)
        let (state, _) = try journal.restore(from: AppFeature.State(), using: AppFeature(environment: env))
        let store = RootStore(initialState: state, reducer: AppFeature(environment: env))
        let recording = journal.record(store) { $0.carriesSecret } // every reduced action from now on
        await store.send(.counter(.incrementTapped)).finish()
        recording.cancel()
        try journal.close()
        #expect(try journal.restore(from: AppFeature.State(), using: AppFeature(environment: env)).state.counter.count == 1)
        database.close()
    }
}
