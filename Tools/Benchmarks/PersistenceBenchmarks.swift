import AppEnvironment
import Foundation
import Models
import Persistence
import Reducers
import StateStore
import StoreBenchmarks

/// A database file in a fresh temporary folder, removed afterwards.
func withTemporaryDatabase<T>(_ body: (Database, String) async throws -> T) async throws -> T {
    let folder = NSTemporaryDirectory() + "appcore-bench-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let path = folder + "/bench.sqlite"
    return try await body(try Database(path: path, migrations: AppSchema.migrations), path)
}

/// The actions of a busy session: typing notes, counting, selecting.
func sessionActions(_ count: Int) -> [AppFeature.Action] {
    let ids = (1...50).map { Note.ID(UUID(sequence: UInt64($0))) }
    return (0..<count).map { index in
        switch index % 4 {
        case 0: .counter(.incrementTapped)
        case 1: .notes(.edited(ids[index % ids.count], "Shopping list, revision \(index): milk, eggs, bread"))
        case 2: .notes(.selected(ids[(index / 4) % ids.count]))
        default: .login(.usernameChanged(Username("user-\(index % 97)")))
        }
    }
}

/// Durable journaled actions per second: appended as a store would, then flushed.
func journalAppendSample(_ operations: Int) async throws -> Double {
    try await withTemporaryDatabase { database, _ in
        let journal = try Journal<AppFeature.State, AppFeature.Action>(database: database, flushInterval: .milliseconds(10))
        let actions = sessionActions(operations)
        let start = monotonicNanoseconds()
        for action in actions { journal.append(action) }
        let last = try journal.flush()
        let elapsed = monotonicNanoseconds() - start
        precondition(last == operations, "journal lost actions")
        return Double(operations) / (Double(elapsed) / 1e9)
    }
}

/// The live clients on `database`, and the session of an account made on them.
func signedIn(on database: Database) async throws -> (AppEnvironment, AuthSession) {
    let live = AppEnvironment.live(database: database, configuration: .testing)
    let credentials = Credentials(username: "bench.writer", password: "benchmark")
    _ = try await live.auth.signUp(credentials)
    return (live, try await live.auth.authenticate(credentials))
}

/// Note creates per second through the live notes client; `untilSearchable`, until the search
/// index holds every one as well. The index keeps up in the background while the notes are
/// written, so the creates alone leave part of the work out; with it, it counts wherever it is done.
func notesWriteSample(_ operations: Int, untilSearchable: Bool = false) async throws -> Double {
    try await withTemporaryDatabase { database, _ in
        let (live, session) = try await signedIn(on: database)
        let date = Date()
        let notes = (0..<operations).map { Note(id: Note.ID(UUID(sequence: UInt64($0 + 1))), text: "note \($0): remember the milk", createdAt: date) }
        let start = monotonicNanoseconds()
        for note in notes { _ = try await live.notes.create(session.token, note) }
        if untilSearchable {
            // Two index seeks a look (counting the notes left would read them all).
            let indexedToTheLast = """
                SELECT coalesce((SELECT indexed_through FROM search_progress WHERE owner_id = ?1), 0)
                    >= (SELECT coalesce(max(change_sequence), 0) FROM notes WHERE owner_id = ?1)
                """
            let owner: [SQLValue] = [.text(session.user.id.description)]
            while try database.read({ db throws(DatabaseError) in try db.query(indexedToTheLast, owner) { $0.int(0) }.first ?? 0 }) == 0 {
                try await Task.sleep(for: .milliseconds(1))
            }
        }
        let elapsed = monotonicNanoseconds() - start
        if untilSearchable {
            let found = try await live.notes.search(session.token, "note \(operations - 1): remember")
            precondition(found.count == 1, "the last note was not found: \(found.count)")
        }
        return Double(operations) / (Double(elapsed) / 1e9)
    }
}

/// The longest time (ms) another connection to the same file waited to write while `count`
/// notes of 1 KB were written through the live client, searched, and indexed to the last: how
/// long any step of the import or of keeping the search index up to date held the write lock.
func writeLockHoldSample(_ count: Int) async throws -> Double {
    try await withTemporaryDatabase { database, path in
        let (live, session) = try await signedIn(on: database)
        // Another process about to save: how long it waits for the write lock, again and again
        // (taking the lock and letting it go, so that its own commits cost nothing).
        // It asks every 0.2 ms rather than through SQLite's busy handler, whose growing sleeps
        // would round every wait up to its schedule.
        let other = try Database(path: path, migrations: AppSchema.migrations, busyTimeout: .zero)
        let probing = Locked((running: true, longest: UInt64(0)))
        let prober = Thread {
            while probing.withLock({ $0.running }) {
                try? other.read { db throws(DatabaseError) in
                    let start = monotonicNanoseconds()
                    while true {
                        do throws(DatabaseError) {
                            try db.execute("BEGIN IMMEDIATE")
                            break
                        } catch  where error.kind == .busy {
                            usleep(200)
                        }
                    }
                    let waited = monotonicNanoseconds() - start
                    try db.execute("ROLLBACK")
                    probing.withLock { $0.longest = max($0.longest, waited) }
                }
                usleep(500)
            }
        }
        prober.start()
        let text = String(repeating: "a kilobyte of imported text ", count: 37)
        let date = Date()
        for index in 0..<count {
            _ = try await live.notes.create(session.token, Note(id: Note.ID(UUID(sequence: UInt64(index + 1))), text: "\(index) " + text, createdAt: date))
        }
        _ = try await live.notes.search(session.token, "imported")
        // The index catches up in the background: wait until it has (at most a minute).
        for _ in 0..<6_000 {
            let left = try database.read { db throws(DatabaseError) in
                try db.query("SELECT count(*) FROM notes WHERE change_sequence > \(SearchIndex.progressOfNotesOwner)") { $0.int(0) }.first ?? 0
            }
            if left == 0 { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        let found = try await live.notes.search(session.token, "0 a kilobyte")
        precondition(!found.isEmpty, "the search found nothing")
        let longest = probing.withLock { state in
            state.running = false
            return state.longest
        }
        while !prober.isFinished { usleep(1_000) }
        other.close()
        return Double(longest) / 1e6
    }
}

/// Milliseconds to restore a session of `operations` user actions (and the responses their
/// effects sent) recorded from a real store, replayed through the app's reducers from the latest
/// snapshot: every `snapshotEvery` actions as the app records (the journal's default), or
/// `.max` to replay every action from the first snapshot.
func restoreSample(_ operations: Int, snapshotEvery: Int = 10_000) async throws -> Double {
    try await withTemporaryDatabase { database, _ in
        let environment = AppEnvironment.noop()
        var initial = AppFeature.State()
        initial.user = SignedIn.State(session: AuthSession(user: User(id: User.ID(UUID(sequence: 999)), username: "bench.user"), token: AccessToken("")))
        initial.user?.notes.items = IdentifiedArray(
            uniqueElements: (1...50).map {
                Notes.Item(note: Note(id: Note.ID(UUID(sequence: UInt64($0))), text: "note \($0)", createdAt: Date(timeIntervalSince1970: 0)))
            })
        let store = RootStore(initialState: initial, reducer: AppFeature(environment: environment), diagnostics: .ignore)
        let journal = try Journal<AppFeature.State, AppFeature.Action>(database: database)
        try journal.snapshot(initial)
        let recording = journal.record(store, snapshotEvery: snapshotEvery)
        for action in sessionActions(operations) { store.send(action) }
        await store.waitForEffects()
        recording.cancel()
        try journal.close()
        let expected = store.currentState

        let reopened = try Journal<AppFeature.State, AppFeature.Action>(database: database)
        let start = monotonicNanoseconds()
        let (restored, replayed) = try reopened.restore(from: AppFeature.State(), using: AppFeature(environment: environment))
        let elapsed = monotonicNanoseconds() - start
        precondition(snapshotEvery == .max || replayed == operations % snapshotEvery, "restore replayed \(replayed) actions, not the tail")
        precondition(
            restored.counter == expected.counter && restored.notes.items.map(\.note) == expected.notes.items.map(\.note),
            "restore diverged from the recorded session")
        return Double(elapsed) / 1e6
    }
}

/// The cases of the persistence issue.
func persistenceBenchmarks(_ plan: RunPlan, selected: @Sendable (String) -> Bool) async -> [CaseResult] {
    var results: [CaseResult] = []
    do {
        if selected("journal-append") {
            let operations = plan.iterations(500_000)
            let samples = try await repeatedThrowing(plan) { try await journalAppendSample(operations) }
            results.append(CaseResult(name: "journal-append", unit: .perSecond, samples: samples, target: .atLeast(500_000)))
        }
        if selected("notes-write") {
            let operations = plan.iterations(100_000)
            let samples = try await repeatedThrowing(plan) { try await notesWriteSample(operations) }
            results.append(CaseResult(name: "notes-write", unit: .perSecond, samples: samples, target: .atLeast(40_000)))
        }
        if selected("notes-write-indexed") {
            let operations = plan.iterations(100_000)
            let samples = try await repeatedThrowing(plan) { try await notesWriteSample(operations, untilSearchable: true) }
            results.append(CaseResult(name: "notes-write-indexed", unit: .perSecond, samples: samples, target: nil))
        }
        if selected("write-lock-hold") {
            let notes = plan.iterations(40_000)
            let samples = try await repeatedThrowing(RunPlan(warmUps: 0, runs: max(1, plan.runs / 3), scale: 1)) { try await writeLockHoldSample(notes) }
            results.append(CaseResult(name: "write-lock-hold", unit: .milliseconds, samples: samples, target: .atMost(100)))
        }
        // Always the full session (the target is about 100,000 actions).
        let restorePlan = RunPlan(warmUps: 1, runs: max(1, plan.runs / 2), scale: 1)
        if selected("restore") {
            // 99,999 actions: the newest snapshot is at 90,000, so 9,999 are replayed, the longest
            // tail the journal's default policy (a snapshot every 10,000) leaves.
            let samples = try await repeatedThrowing(restorePlan) { try await restoreSample(99_999) }
            results.append(CaseResult(name: "restore", unit: .milliseconds, samples: samples, target: .atMost(250)))
        }
        if selected("restore-full-replay") {
            // The worst case: no snapshot since the first, so every action is replayed.
            let samples = try await repeatedThrowing(restorePlan) { try await restoreSample(100_000, snapshotEvery: .max) }
            results.append(CaseResult(name: "restore-full-replay", unit: .milliseconds, samples: samples, target: nil))
        }
    } catch {
        StandardStream.error.write("appcore-bench: a persistence case failed: \(error)\n")
    }
    return results
}

func repeatedThrowing(_ plan: RunPlan, _ sample: () async throws -> Double) async throws -> [Double] {
    for _ in 0..<plan.warmUps { _ = try await sample() }
    var samples: [Double] = []
    for _ in 0..<plan.runs { samples.append(try await sample()) }
    return samples
}
