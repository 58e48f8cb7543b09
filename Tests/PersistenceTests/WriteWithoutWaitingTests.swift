import Foundation
import StateStore
import TestSupport
import Testing

@testable import Persistence

/// A short write is made on its caller's thread when that waits for nothing, and is handed to
/// the work queue, untouched, when it would wait: for another process's write, for a call queued
/// before it, or for the log to be copied into the file.
@Suite("Writes without waiting")
struct WriteWithoutWaitingTests {
    let folder = TemporaryFolder()
    static let items = Migration(version: 1, name: "items", sql: "CREATE TABLE items (id INTEGER PRIMARY KEY, data BLOB NOT NULL)")

    func count(_ database: Database) throws -> Int {
        try database.read { db throws(DatabaseError) in try db.query("SELECT count(*) FROM items") { $0.int(0) }.first ?? 0 }
    }

    @Test func aFreeDatabaseTakesTheWriteHere() throws {
        let database = try Database(path: folder.file("app.sqlite"), migrations: [Self.items])
        let written = try database.writeWithoutWaiting(
            { (db: Connection) throws(DatabaseError) -> Int in
                try db.execute("INSERT INTO items (data) VALUES (x'01')")
                return 1
            }, orFail: { $0 })
        #expect(written == 1)
        #expect(try count(database) == 1)
    }

    @Test func anotherProcessWritingIsNotWaitedFor() async throws {
        let path = folder.file("app.sqlite")
        // A busy timeout far above what the slowest machine takes to not wait.
        let database = try Database(path: path, migrations: [Self.items], busyTimeout: .seconds(120))
        let other = try Database(path: path, migrations: [Self.items])
        let holding = Latch()
        let release = Latch()
        // The other connection holds the write lock until released.
        let writer = Task {
            try await onOwnThread {
                try other.write { db throws(DatabaseError) in
                    try db.execute("INSERT INTO items (data) VALUES (x'02')")
                    holding.open()
                    _ = release.wait(atMost: 30)
                }
            }
        }
        #expect(try await onOwnThread { holding.wait(atMost: 30) })
        let start = ContinuousClock.now
        let written: Void? = try database.writeWithoutWaiting(
            { (db: Connection) throws(DatabaseError) in
                try db.execute("INSERT INTO items (data) VALUES (x'01')")
            }, orFail: { $0 })
        #expect(written == nil, "the lock is held: not written")
        #expect(ContinuousClock.now - start < .seconds(60), "nor waited for (the busy timeout is 120 s)")
        release.open()
        try await writer.value
        #expect(try count(database) == 1, "only the other connection's row")
    }

    @Test func aCallQueuedBeforeKeepsItsTurn() async throws {
        let database = try Database(path: folder.file("app.sqlite"), migrations: [Self.items])
        let started = Latch()
        let release = Latch()
        let queued = Task {
            try await database.onWorkQueue { () throws(DatabaseError) in
                started.open()
                _ = release.wait(atMost: 30)
                try database.write { db throws(DatabaseError) in try db.execute("INSERT INTO items (data) VALUES (x'01')") }
            }
        }
        #expect(try await onOwnThread { started.wait(atMost: 30) })
        let written: Void? = try database.writeWithoutWaiting(
            { (db: Connection) throws(DatabaseError) in
                try db.execute("INSERT INTO items (data) VALUES (x'02')")
            }, orFail: { $0 })
        #expect(written == nil, "a call is queued (and running): this write goes behind it")
        release.open()
        try await queued.value
        #expect(
            try database.writeWithoutWaiting(
                { (db: Connection) throws(DatabaseError) in
                    try db.execute("INSERT INTO items (data) VALUES (x'02')")
                }, orFail: { $0 }) != nil)
        let order = try database.read { db throws(DatabaseError) in try db.query("SELECT data FROM items ORDER BY id") { $0.blob(0) } }
        #expect(order == [[1], [2]])
    }

    @Test func theLogIsCopiedIntoTheFileOnTheWorkQueueNotHere() async throws {
        let database = try Database(path: folder.file("app.sqlite"), migrations: [Self.items])
        // The work queue is held, so a checkpoint queued there waits; the writes here are not held.
        let release = Latch()
        database.workQueue.async { _ = release.wait(atMost: 30) }
        let page = [UInt8](repeating: 7, count: 64 * 1_024)
        // About 16 pages a write: past the checkpoint's size.
        for _ in 0..<(Int(Connection.checkpointPages) / 16 + 20) {
            let written: Void? = try database.writeWithoutWaiting(
                { (db: Connection) throws(DatabaseError) in
                    try db.execute("INSERT INTO items (data) VALUES (?)", [.blob(page)])
                }, orFail: { $0 })
            #expect(written != nil)
        }
        #expect(try database.read { db throws(DatabaseError) in db.isCheckpointDue }, "not copied here")
        release.open()
        await withCheckedContinuation { continuation in database.workQueue.async { continuation.resume() } }
        #expect(try database.read { db throws(DatabaseError) in db.isCheckpointDue } == false, "copied on the work queue")
    }
}
