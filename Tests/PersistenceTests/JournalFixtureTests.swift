import AppEnvironment
import Foundation
import Models
import Persistence
import Reducers
import StateStore
import TestSupport
import Testing

/// A journal written by an earlier AppCore is kept in `Tests/Fixtures/journals/`, actions and
/// snapshots both: a change to a state or an action that no longer decodes what was written
/// (a new field without a default, a renamed case) fails here, not on a user's machine.
/// Write a new fixture next to the old ones (never over them) with
/// `APPCORE_RECORD_JOURNAL_FIXTURE=1 swift test --filter JournalFixtureTests`, after naming it in
/// ``current``: that also writes its shape (every field path the session's states and actions
/// encode), and a test fails while the journaled types' shape differs from the newest fixture's,
/// so a change to a journaled type comes with a fixture of its own, which the next change must
/// then read.
@Suite("Journals written by earlier versions")
struct JournalFixtureTests {
    typealias AppJournal = Journal<AppFeature.State, AppFeature.Action>

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/journals")
    /// The fixture this version writes when asked to.
    static let current = "schema-17.sqlite"

    /// A session of every kind of action, journaled with snapshots every 7 actions and no
    /// compaction, so the file holds both.
    static func record(into path: String) async throws {
        let database = try Database(path: path, migrations: AppSchema.migrations)
        // The live clients on the fixture's own database: its journal names stored notes by
        // reference, which its notes table answers.
        let environment = AppEnvironment.live(database: database, configuration: .testing)
        _ = try await environment.auth.signUp(Credentials(username: "alice.liddell", password: "wonderland"))
        let store = RootStore(initialState: AppFeature.State(), reducer: AppFeature(environment: environment), diagnostics: .ignore)
        let journal = try AppJournal(database: database, stream: "app/fixture")
        let recording = journal.record(store, snapshotEvery: 7, compacts: false) { $0.carriesSecret }
        let actions: [AppFeature.Action] = [
            .counter(.incrementTapped), .counter(.incrementTapped), .counter(.decrementTapped),
            .login(.usernameChanged("alice.liddell")), .login(.passwordChanged("wonderland")), .login(.signInTapped),
        ]
        for action in actions { await store.send(action).finish() }
        await store.waitForEffects()
        for text in ["milk", "Café au lait", "it's 100% \"fine\"\nsecond line"] { await store.send(.notes(.addTapped(text))).finish() }
        await store.waitForEffects()
        if let first = store.currentState.notes.items.first?.id {
            await store.send(.notes(.edited(first, "milk and honey"))).finish()
            await store.waitForEffects()
        }
        if let last = store.currentState.notes.items.last?.id {
            await store.send(.notes(.deleteTapped(last))).finish()
            await store.waitForEffects()
        }
        await store.send(.posts(.add("Hello"))).finish()
        await store.send(.notes(.searchQueryChanged("honey"))).finish()
        await store.waitForEffects()
        // A time long before the session expires: journaled, and changing nothing.
        await store.send(.session(.timePassed(Date(timeIntervalSince1970: 0)))).finish()
        recording.cancel()
        try journal.close()
        database.close()
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["APPCORE_RECORD_JOURNAL_FIXTURE"] == "1"))
    func recordTheFixtureOfThisVersion() async throws {
        let path = Self.fixtures.appendingPathComponent(Self.current).path
        #expect(!FileManager.default.fileExists(atPath: path), "a fixture is never written over; name a new one")
        try FileManager.default.createDirectory(at: Self.fixtures, withIntermediateDirectories: true)
        try await Self.record(into: path)
        try (try await Self.shape().joined(separator: "\n") + "\n").write(toFile: Self.shapePath(of: Self.current), atomically: true, encoding: .utf8)
    }

    /// Where the shape of fixture `name` is kept.
    static func shapePath(of name: String) -> String {
        Self.fixtures.appendingPathComponent(name.replacingOccurrences(of: ".sqlite", with: ".shape")).path
    }

    /// Every field path the fixture session's actions and snapshots encode (in JSON) with this
    /// version's types, and what kind of value it holds: `state.notes.items[].note.version: number or bool`.
    static func shape() async throws -> [String] {
        let folder = TemporaryFolder()
        let path = folder.file("shape.sqlite")
        try await record(into: path)
        let database = try Database(path: path, migrations: AppSchema.migrations)
        defer { database.close() }
        let journal = try AppJournal(database: database, stream: "app/fixture")
        var paths = Set<String>()
        let encoder = JSONEncoder()
        for entry in try journal.entries() {
            collect(try JSONSerialization.jsonObject(with: try encoder.encode(entry.action), options: .fragmentsAllowed), at: "action", into: &paths)
        }
        let (state, _) = try journal.restore(from: AppFeature.State(), using: AppFeature(environment: .noop()))
        collect(try JSONSerialization.jsonObject(with: try encoder.encode(state), options: .fragmentsAllowed), at: "state", into: &paths)
        // Every field of every case too, which no session reaches: a conflict's payload, a failure.
        var every = EveryField()
        every.caseNames = EveryField.declaredCaseNames
        every.use({ Note.ID(UUID(sequence: UInt64($0))) }, for: Note.ID.self)
        every.use({ Post.ID(UUID(sequence: UInt64($0))) }, for: Post.ID.self)
        every.use({ User.ID(UUID(sequence: UInt64($0))) }, for: User.ID.self)
        every.use({ Username("user.\($0)") }, for: Username.self)
        // Each enum takes its `variant`-th case, counting around: this many reach every case of each
        // enum and of the enums its cases carry (a fixed count, so what is covered changes only
        // with the journaled types).
        for variant in 0..<1_024 {
            let action = try every.value(AppFeature.Action.self, variant: variant)
            collect(try JSONSerialization.jsonObject(with: try encoder.encode(action), options: .fragmentsAllowed), at: "action", into: &paths)
            let state = try every.value(AppFeature.State.self, variant: variant)
            collect(try JSONSerialization.jsonObject(with: try encoder.encode(state), options: .fragmentsAllowed), at: "state", into: &paths)
        }
        return paths.sorted()
    }

    private static func collect(_ value: Any, at path: String, into paths: inout Set<String>) {
        switch value {
        case let object as [String: Any]:
            if object.isEmpty { paths.insert("\(path): {}") }
            for (key, child) in object { collect(child, at: path + "." + key, into: &paths) }
        case let array as [Any]:
            if array.isEmpty { paths.insert("\(path): []") }
            for child in array { collect(child, at: path + "[]", into: &paths) }
        case is String: paths.insert("\(path): string")
        case is NSNumber: paths.insert("\(path): number or bool")
        default: paths.insert("\(path): null")
        }
    }

    @Test func journaledTypesHaveTheShapeOfTheNewestFixture() async throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.fixtures.path).filter { $0.hasSuffix(".shape") }
        let newest = try #require(names.max { $0.localizedStandardCompare($1) == .orderedAscending }, "no fixture has a shape")
        let recorded = Set(
            try String(contentsOfFile: Self.fixtures.appendingPathComponent(newest).path, encoding: .utf8).split(separator: "\n").map(String.init))
        let current = Set(try await Self.shape())
        let (added, removed) = (current.subtracting(recorded).sorted(), recorded.subtracting(current).sorted())
        #expect(
            added.isEmpty && removed.isEmpty,
            """
            The journaled types changed since the newest fixture (\(newest)): \
            added \(added), removed \(removed). \
            Name a new fixture in JournalFixtureTests.current and record it with \
            APPCORE_RECORD_JOURNAL_FIXTURE=1 swift test --filter JournalFixtureTests, so the next change must read this one.
            """)
    }

    @Test func everyFixtureRestoresWithNothingDamaged() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.fixtures.path).filter { $0.hasSuffix(".sqlite") }
        #expect(!names.isEmpty)
        for name in names {
            // A copy: opening migrates it.
            let folder = TemporaryFolder()
            let path = folder.file(name)
            try FileManager.default.copyItem(atPath: Self.fixtures.appendingPathComponent(name).path, toPath: path)
            let database = try Database(path: path, migrations: AppSchema.migrations)
            let damage = Locked<[String]>([])
            let journal = try AppJournal(database: database, stream: "app/fixture") { event in
                if case .damaged(let what) = event { damage.withLock { $0.append(what) } }
            }
            let entries = try journal.entries()
            #expect(!entries.isEmpty, "\(name) holds actions")
            let snapshots = try database.read { db throws(DatabaseError) in try db.query("SELECT count(*) FROM snapshots") { $0.int(0) } }
            #expect((snapshots.first ?? 0) > 1, "\(name) holds snapshots")
            let (state, _) = try journal.restore(from: AppFeature.State(), using: AppFeature(environment: .noop()))
            #expect(damage.withLock { $0 }.isEmpty, "\(name): \(damage.withLock { $0 })")
            #expect(state.counter.count == 1)
            #expect(state.signedInUser?.username == "alice.liddell")
            #expect(Set(state.notes.items.map(\.note.text)) == ["milk and honey", "Café au lait"], "\(name)")
            guard case .loaded(let posts) = state.posts.phase else {
                Issue.record("\(name): the posts are \(state.posts.phase)")
                continue
            }
            #expect(posts.map(\.text) == ["Hello"])
            #expect(state.notes.searchQuery == "honey")
            database.close()
        }
    }
}
