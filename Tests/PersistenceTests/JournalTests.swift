import AppEnvironment
import Foundation
import Models
import Persistence
import Reducers
import StateStore
import TestSupport
import Testing

@Suite("Journal")
struct JournalTests {
    let folder = TemporaryFolder()

    typealias AppJournal = Journal<AppFeature.State, AppFeature.Action>

    /// A signed-in app on the in-memory clients, with a few actions of every kind reduced and
    /// journaled.
    func recordSession(in database: Database) async throws -> AppFeature.State {
        // The live clients on the journal's own database: the journal names stored notes by
        // reference, and restoring reads them from its notes table.
        let environment = AppEnvironment.live(database: database, configuration: .testing)
        _ = try await environment.auth.signUp(Credentials(username: "alice.liddell", password: "wonderland-secret"))
        let store = RootStore(initialState: AppFeature.State(), reducer: AppFeature(environment: environment))
        let journal = try AppJournal(database: database)
        let recording = journal.record(store, snapshotEvery: 7, compacts: false)
        for action: AppFeature.Action in [
            .counter(.incrementTapped), .counter(.incrementTapped),
            .login(.usernameChanged("alice.liddell")), .login(.passwordChanged("wonderland-secret")), .login(.signInTapped),
        ] {
            await store.send(action).finish()
        }
        await store.waitForEffects()
        for text in ["milk", "eggs", "it's 100% \"fine\""] {
            await store.send(.notes(.addTapped(text))).finish()
        }
        await store.send(.counter(.decrementTapped)).finish()
        await store.waitForEffects()
        recording.cancel()
        try journal.close()
        return store.currentState
    }

    @Test func theStreamWrittenLastIsTheLatestWhoeverWroteBetween() throws {
        let path = folder.file("streams.sqlite")
        let database = try Database(path: path, migrations: AppSchema.migrations)
        let otherProcess = try Database(path: path, migrations: AppSchema.migrations)
        let first = try AppJournal(database: database, stream: "app/first")
        let second = try AppJournal(database: database, stream: "app/second")
        let elsewhere = try AppJournal(database: otherProcess, stream: "app/elsewhere")
        func latest() throws -> String? {
            try database.read { db throws(DatabaseError) in
                try db.query("SELECT stream FROM journal_streams ORDER BY last_active DESC, rowid DESC LIMIT 1") { $0.text(0) }.first
            }
        }
        // Another journal on the same connection, then one on another connection, writes between
        // two writes of the first: each write makes its own stream the latest again.
        for (journal, writers) in [(first, "first"), (first, "first"), (second, "second"), (first, "first"), (elsewhere, "elsewhere"), (first, "first")] {
            journal.append(.counter(.incrementTapped))
            try journal.flush()
            #expect(try latest() == "app/\(writers)")
        }
    }

    @Test func restoringReplaysTheJournalWithoutRunningEffects() async throws {
        let database = try Database(path: folder.file("app.sqlite"), migrations: AppSchema.migrations)
        let live = try await recordSession(in: database)
        #expect(live.isSignedIn && live.notes.items.count == 3 && live.counter.count == 1)

        // Effects would call these clients and fail the test: replay must not run them.
        let replay = AppFeature(environment: .failing(UnexpectedCallReporter { Issue.record(Comment(rawValue: $0)) }))
        let reopened = try AppJournal(database: try Database(path: folder.file("app.sqlite"), migrations: AppSchema.migrations))
        let (restored, replayed) = try reopened.restore(from: AppFeature.State(), using: replay)
        #expect(replayed > 0)
        #expect(restored.counter == live.counter)
        #expect(restored.notes.items.map(\.note) == live.notes.items.map(\.note))
        #expect(restored.notes.items.allSatisfy { $0.save == .saved })
        #expect(restored.profile == live.profile && restored.posts == live.posts)
        #expect(restored.signedInUser == live.signedInUser)
        #expect(restored.user?.token.isEmpty == true, "tokens are never journaled")
        #expect(restored.loginStatus.isAuthenticated)
    }

    @Test func aSignInReplaysToASignedInStateThoughItsPasswordWasRedacted() async throws {
        let database = try Database(path: folder.file("app.sqlite"), migrations: AppSchema.migrations)
        let environment = AppEnvironment.inMemory()
        _ = try await environment.auth.signUp(Credentials(username: "alice.liddell", password: "wonderland"))
        let store = RootStore(initialState: AppFeature.State(), reducer: AppFeature(environment: environment))
        let journal = try AppJournal(database: database)
        let recording = journal.record(store, snapshotEvery: .max) { $0.carriesSecret }
        for action: AppFeature.Action in [.login(.usernameChanged("alice.liddell")), .login(.passwordChanged("wonderland")), .login(.signInTapped)] {
            await store.send(action).finish()
        }
        await store.waitForEffects()
        await store.send(.notes(.addTapped("kept"))).finish()
        await store.waitForEffects()
        recording.cancel()
        try journal.close()
        let (restored, _) = try AppJournal(database: database).restore(from: AppFeature.State(), using: AppFeature(environment: .noop()))
        #expect(restored.isSignedIn)
        #expect(restored.notes.items.map(\.note.text) == ["kept"])
        #expect(restored.loginStatus.password.isEmpty)
    }

    @Test func secretsAreNeverWrittenInClear() async throws {
        let path = folder.file("app.sqlite")
        let database = try Database(path: path, migrations: AppSchema.migrations)
        let live = try await recordSession(in: database)
        let token = try #require(live.user?.token.revealed)
        let bytes = (contents(path) ?? Data()) + (contents(path + "-wal") ?? Data())
        #expect(bytes.range(of: Data("wonderland-secret".utf8)) == nil)
        #expect(bytes.range(of: Data(token.utf8)) == nil)
        #expect(bytes.range(of: Data("alice.liddell".utf8)) != nil, "the check reads the real bytes")

        // A restored state mid-typing shows an empty password rather than a leaked one.
        let journal = try AppJournal(database: database)
        let typing = try journal.entries().prefix { if case .login(.signInTapped) = $0.action { false } else { true } }
        var state = AppFeature.State()
        for entry in typing { _ = AppFeature(environment: .noop()).reduce(into: &state, action: entry.action) }
        #expect(state.loginStatus.username == "alice.liddell")
        #expect(state.loginStatus.password.isEmpty)
    }

    @Test func snapshotsCompactionAndExport() async throws {
        let database = try Database(path: folder.file("app.sqlite"), migrations: AppSchema.migrations)
        let journal = try Journal<Counter.State, Counter.Action>(database: database, stream: "counter")
        for _ in 0..<5 { journal.append(.incrementTapped) }
        try journal.snapshot(Counter.State(count: 5))
        journal.append(.decrementTapped)
        journal.append(.incrementTapped)
        #expect(try journal.flush() == 7)
        #expect(try journal.restore(from: Counter.State(), using: Counter()) == (Counter.State(count: 5), 2) as (Counter.State, Int))

        #expect(try journal.export(5...6) == #"{"incrementTapped":{}}"# + "\n" + #"{"decrementTapped":{}}"#)

        try journal.compact()
        #expect(try journal.entries().map(\.sequence) == [6, 7])
        let restored = try journal.restore(from: Counter.State(), using: Counter())
        #expect(restored.state.count == 5 && restored.replayed == 2)

        // A reopened journal continues after the last action.
        try journal.close()
        let reopened = try Journal<Counter.State, Counter.Action>(database: database, stream: "counter")
        reopened.append(.resetTapped)
        #expect(try reopened.flush() == 8)
        #expect(try reopened.restore(from: Counter.State(), using: Counter()).state.count == 0)
    }

    @Test func aRecordedStreamStaysWithinItsSnapshotWindow() async throws {
        let path = folder.file("long-lived.sqlite")
        let database = try Database(path: path, migrations: AppSchema.migrations)
        let store = RootStore(initialState: Counter.State(), reducer: Counter())
        let journal = try Journal<Counter.State, Counter.Action>(database: database, stream: "counter")
        let recording = journal.record(store, snapshotEvery: 1_000)
        for _ in 0..<25_500 { store.send(.incrementTapped) }
        recording.cancel()
        try journal.close()
        let entries = try journal.entries()
        #expect(entries.count == 500, "the actions since the last snapshot, at 25,000")
        let snapshots = try database.read { db throws(DatabaseError) in
            try db.query("SELECT count(*) FROM snapshots WHERE stream = 'counter'") { $0.int(0) }.first
        }
        #expect(snapshots == 1)
        #expect(try journal.restore(from: Counter.State(), using: Counter()).state.count == 25_500)
    }

    /// A count whose encoding notes the thread it runs on.
    struct EncodingProbe: Reducer {
        struct State: Codable, Equatable, Sendable {
            static let encodedOn = Locked<[ObjectIdentifier]>([])
            var count = 0

            init() {}
            init(from decoder: any Decoder) throws { count = try decoder.singleValueContainer().decode(Int.self) }
            func encode(to encoder: any Encoder) throws {
                Self.encodedOn.withLock { $0.append(ObjectIdentifier(Thread.current)) }
                var container = encoder.singleValueContainer()
                try container.encode(count)
            }
        }
        enum Action: Codable, Equatable, Sendable { case increment }
        func reduce(into state: inout State, action: Action) -> Effect<Action> {
            state.count += 1
            return .none
        }
    }

    @Test func periodicSnapshotsAreEncodedOffTheReducingThread() throws {
        let database = try Database(path: folder.file("probe.sqlite"), migrations: AppSchema.migrations)
        let store = RootStore(initialState: EncodingProbe.State(), reducer: EncodingProbe())
        let journal = try Journal<EncodingProbe.State, EncodingProbe.Action>(database: database, stream: "probe")
        let recording = journal.record(store, snapshotEvery: 10)
        for _ in 0..<30 { store.send(.increment) }
        journal.waitForSnapshots()
        recording.cancel()
        let reducingThread = ObjectIdentifier(Thread.current)
        let threads = EncodingProbe.State.encodedOn.withLock { $0 }
        #expect(threads.count == 3, "a snapshot every 10 actions")
        #expect(!threads.contains(reducingThread), "encoded where the store does not wait for it")
        let (restored, replayed) = try journal.restore(from: EncodingProbe.State(), using: EncodingProbe())
        #expect(restored.count == 30 && replayed == 0, "the last snapshot is after the 30th action")
    }

    /// A count beside 6,400 bytes of text: a snapshot 100 actions' worth (64 bytes each).
    struct BigState: Reducer {
        struct State: Codable, Equatable, Sendable {
            var count = 0
            var text = String(repeating: "x", count: 6_400)
        }
        enum Action: Codable, Equatable, Sendable { case increment }
        func reduce(into state: inout State, action: Action) -> Effect<Action> {
            state.count += 1
            return .none
        }
    }

    /// A count whose actions each carry 10,000 characters, as a search's matches among many
    /// notes carry much.
    struct HeavyActions: Reducer {
        struct State: Codable, Equatable, Sendable { var count = 0 }
        enum Action: Codable, Equatable, Sendable { case found(String) }
        func reduce(into state: inout State, action: Action) -> Effect<Action> {
            state.count += 1
            return .none
        }
    }

    @Test func actionsThatCarryMuchAreSnapshottedByTheirBytes() throws {
        let database = try Database(path: folder.file("heavy.sqlite"), migrations: AppSchema.migrations)
        let store = RootStore(initialState: HeavyActions.State(), reducer: HeavyActions())
        let journal = try Journal<HeavyActions.State, HeavyActions.Action>(database: database, stream: "heavy")
        // Four times 100 actions of 64 bytes: 25,600 bytes, so a snapshot every few actions of 10 KB.
        let recording = journal.record(store, snapshotEvery: 100)
        let text = String(repeating: "m", count: 10_000)
        for number in 1...50 {
            store.send(.found(text))
            try journal.flush()
            if number % 10 == 0 { journal.waitForSnapshots() }
        }
        journal.waitForSnapshots()
        recording.cancel()
        try journal.flush()
        let journalBytes = try database.read { db throws(DatabaseError) in
            try db.query("SELECT coalesce(sum(length(actions)), 0) FROM journal WHERE stream = 'heavy'") { $0.int(0) }.first ?? 0
        }
        #expect(try latestSnapshot("heavy", in: database) >= 46, "snapshots by bytes, long before 100 actions")
        #expect(journalBytes < 50_000, "the stream keeps a few actions' bytes, not 50 (\(journalBytes) bytes)")
        let (restored, replayed) = try journal.restore(from: HeavyActions.State(), using: HeavyActions())
        #expect(restored.count == 50 && replayed <= 4)
    }

    /// The action the latest snapshot of `stream` follows (0: none).
    func latestSnapshot(_ stream: String, in database: Database) throws -> Int {
        try database.read { db throws(DatabaseError) in
            try db.query("SELECT coalesce(max(sequence), 0) FROM snapshots WHERE stream = ?", [.text(stream)]) { $0.int(0) }.first ?? 0
        }
    }

    @Test func aBigStateIsSnapshottedAfterActionsInProportionToItsSize() throws {
        let database = try Database(path: folder.file("big.sqlite"), migrations: AppSchema.migrations)
        let store = RootStore(initialState: BigState.State(), reducer: BigState())
        let journal = try Journal<BigState.State, BigState.Action>(database: database, stream: "big")
        let recording = journal.record(store, snapshotEvery: 10)
        for _ in 0..<10 { store.send(.increment) }
        journal.waitForSnapshots()
        #expect(try latestSnapshot("big", in: database) == 10, "the first after 10 actions")
        for _ in 0..<120 { store.send(.increment) }
        journal.waitForSnapshots()
        recording.cancel()
        #expect(try latestSnapshot("big", in: database) == 110, "the next 100 actions later (its 6.4 KB), not every 10")
        try journal.flush()
        let (restored, replayed) = try journal.restore(from: BigState.State(), using: BigState())
        #expect(restored.count == 130 && replayed == 20)
    }

    @Test func aProcessThatStartsOnABigStateKeepsTheDistanceBetweenSnapshots() throws {
        let path = folder.file("restarted.sqlite")
        /// A run of a process: restores the journal, sends `actions`, and stops without closing.
        func run(_ actions: Int) throws -> (restoredCount: Int, latestSnapshot: Int) {
            let database = try Database(path: path, migrations: AppSchema.migrations)
            let journal = try Journal<BigState.State, BigState.Action>(database: database, stream: "big", flushInterval: .seconds(3_600))
            let (restored, _) = try journal.restore(from: BigState.State(), using: BigState())
            let store = RootStore(initialState: restored, reducer: BigState())
            let recording = journal.record(store, snapshotEvery: 10)
            for _ in 0..<actions { store.send(.increment) }
            journal.waitForSnapshots()
            recording.cancel()
            try journal.flush()
            return (restored.count, try latestSnapshot("big", in: database))
        }
        #expect(try run(10) == (0, 10), "the first snapshot after 10 actions: 6.4 KB")
        #expect(try run(60) == (10, 10), "not every 10 actions: 100 after the 6.4 KB one, however the process started")
        #expect(try run(40) == (70, 110), "counted from the stored snapshot, across processes")
    }

    @Test func appendedActionsBecomeDurableOnTheirOwn() async throws {
        let database = try Database(path: folder.file("app.sqlite"), migrations: AppSchema.migrations)
        let journal = try Journal<Counter.State, Counter.Action>(database: database, stream: "counter", flushInterval: .milliseconds(5))
        for _ in 0..<100 { journal.append(.incrementTapped) }
        for _ in 0..<400 where try journal.entries().count < 100 {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(try journal.entries().count == 100, "the background flush wrote them without being asked")
    }

    @Test func aFailedFlushKeepsTheActionsForTheNextOne() throws {
        let path = folder.file("app.sqlite")
        let blocker = try Database(path: path, migrations: AppSchema.migrations)
        let impatient = try Journal<Counter.State, Counter.Action>(
            database: try Database(path: path, migrations: AppSchema.migrations, busyTimeout: .milliseconds(10)),
            stream: "counter", flushInterval: .seconds(3600))
        impatient.append(.incrementTapped)
        try blocker.write { _ throws(DatabaseError) in
            _ = #expect(throws: DatabaseError.self) { try impatient.flush() }
        }
        #expect(try impatient.flush() == 1, "the action survived the failed flush")
        #expect(try impatient.entries().map(\.action) == [.incrementTapped])
    }
}
