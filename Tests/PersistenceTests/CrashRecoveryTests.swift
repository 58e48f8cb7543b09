import AppEnvironment
import Foundation
import Models
import Persistence
import Reducers
import StateStore
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A real child process journals actions and writes notes until it is killed with SIGKILL; the
/// database must then be intact, hold every acknowledged note, and restore to the state after
/// the last durable action.
@Suite("Crash recovery")
struct CrashRecoveryTests {
    static let childDatabase = ProcessInfo.processInfo.environment["APPCORE_CRASH_CHILD_DB"]
    static let credentials = Credentials(username: "crash.tester", password: "wonderland")

    /// The child's work: runs only when the parent test starts this binary with the variable set.
    @Test(.enabled(if: childDatabase != nil, "runs only as the child process of killedMidStream"))
    func crashChild() async throws {
        let path = try #require(Self.childDatabase)
        let database = try Database(path: path, migrations: AppSchema.migrations)
        let environment = AppEnvironment.live(database: database, configuration: .testing)
        let session = try await environment.auth.authenticate(Self.credentials)
        let store = RootStore(initialState: AppFeature.State(), reducer: AppFeature(environment: environment))
        let journal = try Journal<AppFeature.State, AppFeature.Action>(database: database, flushInterval: .milliseconds(2))
        let recording = journal.record(store, snapshotEvery: 300)
        defer { recording.cancel() }
        var count = 0
        while true {
            store.send(.counter(.incrementTapped))
            count += 1
            if count % 7 == 0 {
                let note = Note(id: Note.ID(UUID()), text: "note \(count) — it's \"durable\"", createdAt: Date())
                _ = try await environment.notes.create(session.token, note)
                Self.say("ack \(note.id)")
            }
            if count % 50 == 0 {
                Self.say("durable \(try journal.flush())")
            }
        }
    }

    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    @Test func killedMidStream() async throws {
        let folder = TemporaryFolder()
        let path = folder.file("crash.sqlite")
        do {
            let database = try Database(path: path, migrations: AppSchema.migrations)
            _ = try await AppEnvironment.live(database: database, configuration: .testing).auth.signUp(Self.credentials)
        }

        let child = try TestChild(running: "crashChild", environment: ["APPCORE_CRASH_CHILD_DB": path])
        await child.waitForLine { lines in lines.filter { $0.hasPrefix("durable ") }.count >= 5 }
        #expect(child.process.isRunning, "the child was still writing when killed")
        kill(child.process.processIdentifier, SIGKILL)
        try await onOwnThread { child.waitUntilExit() }
        #expect(child.process.terminationReason == .uncaughtSignal)

        let seen = child.lines
        let acknowledged = Set(seen.filter { $0.hasPrefix("ack ") }.compactMap { Note.ID(String($0.dropFirst(4))) })
        let durable = seen.filter { $0.hasPrefix("durable ") }.compactMap { Int($0.dropFirst(8)) }.max() ?? 0
        #expect(acknowledged.count >= 5)
        #expect(durable >= 50)

        let database = try Database(path: path, migrations: AppSchema.migrations)
        let integrity = try database.read { db throws(DatabaseError) in try db.query("PRAGMA integrity_check") { $0.text(0) } }
        #expect(integrity == ["ok"])

        let live = AppEnvironment.live(database: database, configuration: .testing)
        let session = try await live.auth.authenticate(Self.credentials)
        let stored = Set(try await live.notes.list(session.token).map(\.id))
        #expect(acknowledged.isSubset(of: stored), "every acknowledged note survived")

        let journal = try Journal<AppFeature.State, AppFeature.Action>(database: database)
        // Compaction keeps the actions since the last periodic snapshot (none, when the kill
        // came right after one); every action counts one, so the count is the last sequence.
        let entries = try journal.entries()
        if let first = entries.first?.sequence {
            #expect(entries.map(\.sequence) == Array(first..<(first + entries.count)), "no gap and no torn batch")
        }
        let (restored, replayed) = try journal.restore(from: AppFeature.State(), using: AppFeature(environment: .noop()))
        // A kill between a periodic snapshot and the compaction after it (two transactions)
        // leaves the actions the snapshot covers: harmless, restoring starts after them.
        let snapshot = try database.read { db throws(DatabaseError) in
            try db.query("SELECT max(sequence) FROM snapshots") { $0.isNull(0) ? 0 : $0.int(0) }.first ?? 0
        }
        #expect(replayed == entries.filter { $0.sequence > snapshot }.count)
        #expect(restored.counter.count >= durable, "every action reported durable survived")
        if let last = entries.last?.sequence {
            #expect(restored.counter.count == last, "the state after the last durable action")
        }
    }
}
