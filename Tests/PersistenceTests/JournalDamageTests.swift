import Foundation
import Persistence
import StateStore
import TestSupport
import Testing

/// Faults the journal meets — damaged bytes, a full disk, processes that die — are contained
/// and said, never a lock-out and never silent.
@Suite("Journal under faults")
struct JournalDamageTests {
    let folder = TemporaryFolder()

    /// A journal of counter actions, a reducer that adds them up.
    struct Adding: Reducer {
        func reduce(into state: inout Int, action: Int) -> Effect<Int> {
            state += action
            return .none
        }
    }

    typealias Numbers = Journal<Int, Int>

    /// Writes `batches` batches of actions 1, 2, 3, … (one flush each), a snapshot first.
    func write(batches: Int, to database: Database) throws -> [Int] {
        // No background flush, which could split a batch.
        let journal = try Numbers(database: database, flushInterval: .seconds(3600))
        try journal.snapshot(0)
        var written: [Int] = []
        for batch in 0..<batches {
            for value in 1...3 {
                journal.append(batch * 3 + value)
                written.append(batch * 3 + value)
            }
            try journal.flush()
        }
        try journal.close()
        return written
    }

    func damage(_ sql: String, in database: Database) throws {
        try database.write { db throws(DatabaseError) in try db.execute(sql) }
    }

    @Test func aDamagedBatchIsSkippedAndSaid() throws {
        let database = try Database(path: folder.file("app.sqlite"), migrations: AppSchema.migrations)
        let written = try write(batches: 5, to: database)
        // The third batch (actions 7–9) loses its bytes' meaning.
        try damage("UPDATE journal SET actions = X'00FF13370000' WHERE first_sequence = 7", in: database)
        let events = Collected<Numbers.Event>()
        let journal = try Numbers(database: database, report: events.append)
        let (state, replayed) = try journal.restore(from: 0, using: Adding())
        #expect(replayed == 12)
        #expect(state == written.reduce(0, +) - (7 + 8 + 9))
        guard case .damaged(let what)? = events.all.first, events.all.count == 1 else {
            Issue.record("expected one damage report, got \(events.all)")
            return
        }
        #expect(what.hasPrefix("actions 7–9 could not be read ("), "\(what)")
    }

    @Test func aDamagedSnapshotGivesWayToTheStateBeforeIt() throws {
        let database = try Database(path: folder.file("app.sqlite"), migrations: AppSchema.migrations)
        let journal = try Numbers(database: database)
        journal.append(5)
        try journal.snapshot(5)
        journal.append(10)
        try journal.snapshot(15)
        journal.append(100)
        try journal.close()
        try damage("UPDATE snapshots SET state = X'FFFF' WHERE sequence = 2", in: database)
        let events = Collected<Numbers.Event>()
        let (state, replayed) = try Numbers(database: database, report: events.append).restore(from: 0, using: Adding())
        #expect(state == 115 && replayed == 2, "the snapshot after action 1, then actions 2 and 3")
        #expect(events.all.count == 1)
        if case .damaged(let what)? = events.all.first {
            #expect(what.contains("after action 2") && what.contains("starting from the snapshot before it"), "\(what)")
        } else {
            Issue.record("expected a damage report, got \(events.all)")
        }
    }

    @Test func aFullDiskIsReportedOnceAndTheActionsWaitUntilSpaceReturns() throws {
        let database = try Database(path: folder.file("app.sqlite"), migrations: AppSchema.migrations)
        let events = Collected<Numbers.Event>()
        // No background flush, which could write the first few actions into the last page's room.
        let journal = try Numbers(database: database, flushInterval: .seconds(3600), report: events.append)
        try journal.snapshot(0)
        let pages = try database.read { db throws(DatabaseError) in try db.query("PRAGMA page_count") { $0.int(0) }.first ?? 0 }
        try database.read { db throws(DatabaseError) in _ = try db.query("PRAGMA max_page_count = \(pages)") { $0.int(0) } }
        // Enough actions that a batch needs new pages.
        for value in 0..<20_000 { journal.append(value) }
        for _ in 0..<3 { #expect(throws: DatabaseError.self) { try journal.flush() } }
        #expect(journal.unwrittenCount == 20_000, "nothing was dropped")
        #expect(events.all.count == 1, "one report for the episode, not one per try: \(events.all)")
        if case .writeFailed(let error, let unwritten)? = events.all.first {
            #expect(error.description.contains("full") && unwritten == 20_000, "\(error)")
        } else {
            Issue.record("expected writeFailed, got \(events.all)")
        }
        try database.read { db throws(DatabaseError) in _ = try db.query("PRAGMA max_page_count = 1000000") { $0.int(0) } }
        try journal.flush()
        #expect(journal.unwrittenCount == 0)
        #expect(events.all.last == .writeRecovered)
        try journal.close()
        let (state, _) = try Numbers(database: database).restore(from: 0, using: Adding())
        #expect(state == (0..<20_000).reduce(0, +))
    }

    @Test func streamsOfProcessesThatAreGoneAreRemovedAndRunningOnesKept() throws {
        let database = try Database(path: folder.file("app.sqlite"), migrations: AppSchema.migrations)
        let own = try Numbers(database: database, stream: "app/own")
        try own.snapshot(0)
        for stream in ["app/killed", "app/running"] {
            try Numbers(database: database, stream: stream).snapshot(1)
        }
        // "killed": a process id that is not in use; "running": this process, as another
        // stream of it would be; a stream written before owners were recorded has none.
        try damage("UPDATE journal_streams SET owner_pid = 2147483600 WHERE stream = 'app/killed'", in: database)
        try database.write { db throws(DatabaseError) in
            try db.execute("INSERT INTO journal_streams (stream, last_active) VALUES ('app/before-owners', 0)")
        }
        try Numbers.removeClosedStreams(except: ["app/own"], in: database)
        let left = try database.read { db throws(DatabaseError) in try db.query("SELECT stream FROM journal_streams ORDER BY stream") { $0.text(0) } }
        #expect(left == ["app/own", "app/running"])
        let snapshots = try database.read { db throws(DatabaseError) in try db.query("SELECT count(*) FROM snapshots WHERE stream = 'app/killed'") { $0.int(0) }
        }
        #expect(snapshots == [0], "a removed stream leaves nothing behind")
    }
}
