import Foundation
import StateStore
import TestSupport
import Testing

@testable import Persistence

/// A short write is made on its caller's thread when that waits for nothing, and is handed to
/// the work queue, untouched, when it would wait: for another process's write or a call queued
/// before it. Neither waits for the log to be copied into the file, which a connection of its own does.
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

    @Test func theLogIsCopiedIntoTheFileOnAConnectionOfItsOwnWhileWritesGoOn() async throws {
        let path = folder.file("app.sqlite")
        let database = try Database(path: path, migrations: [Self.items])
        let checkpointer = try #require(database.checkpointer)
        // The checkpoint's thread is held, so a checkpoint asked for waits; the writes are not held.
        let release = Latch()
        checkpointer.queue.async { _ = release.wait(atMost: 30) }
        let page = [UInt8](repeating: 7, count: 64 * 1_024)
        // About 16 pages a write: past the checkpoint's size.
        let writes = Int(Connection.checkpointPages) / 16 + 20
        for _ in 0..<writes {
            let written: Void? = try database.writeWithoutWaiting(
                { (db: Connection) throws(DatabaseError) in
                    try db.execute("INSERT INTO items (data) VALUES (?)", [.blob(page)])
                }, orFail: { $0 })
            #expect(written != nil, "written here, not handed to the work queue")
        }
        try await database.onWorkQueue { () throws(DatabaseError) in
            try database.write { db throws(DatabaseError) in try db.execute("INSERT INTO items (data) VALUES (x'01')") }
        }
        let fileSize = { try #require(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) }
        #expect(try fileSize() < writes * page.count / 2, "still in the log")
        release.open()
        await checkpointer.waitUntilIdle()
        #expect(try fileSize() >= writes * page.count, "copied into the file")
        #expect(try count(database) == writes + 1)
        database.close()
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"), "the checkpoint's connection is closed before the database's")
    }

    @Test func theCheckpointerCopiesTheBulkAndLeavesTheRestToTheWriters() async throws {
        let database = try Database(path: folder.file("app.sqlite"), migrations: [Self.items])
        let checkpointer = try #require(database.checkpointer)
        let release = Latch()
        checkpointer.queue.async { _ = release.wait(atMost: 30) }
        #expect(checkpointer.request(logGeneration: 0), "the bulk is copied there")
        #expect(checkpointer.request(logGeneration: 0), "asked again while it copies: nothing more to do")
        release.open()
        await checkpointer.waitUntilIdle()
        #expect(!checkpointer.request(logGeneration: 0), "copied: the writers copy the rest")
        #expect(checkpointer.request(logGeneration: 1), "the next time the log has grown, a copy starts again")
        await checkpointer.waitUntilIdle()
        #expect(checkpointer.request(logGeneration: 2), "copied, but the log started over since: its bulk is copied there")
        await checkpointer.waitUntilIdle()
        checkpointer.close()
        #expect(!checkpointer.request(logGeneration: 2), "closed: the writers copy all of it")
    }

    @Test func underASteadyStreamOfWritesTheLogStartsOver() async throws {
        let database = try Database(path: folder.file("app.sqlite"), migrations: [Self.items])
        try database.read { db throws(DatabaseError) in db.checkpointPages = 64 }
        let row = [UInt8](repeating: 7, count: 4_096)
        // Writes without a pause, as a busy writer makes them: a copy made beside them never finds
        // the log copied to its end, so the writers' connection copies the last pages. Without
        // that the log would only grow (up to the bound here, 200 MB), however long copies take.
        var startsOver = 0
        var lastPages: Int32 = 0
        while startsOver < 3, lastPages < 50_000 {
            try database.write { db throws(DatabaseError) in try db.execute("INSERT INTO items (data) VALUES (?)", [.blob(row)]) }
            // The log's pages after the write's commit (0 once the writers copied it: not a size).
            let pages = try database.read { db throws(DatabaseError) in db.logPages }
            if pages > 0 {
                if pages < lastPages { startsOver += 1 }
                lastPages = pages
            }
        }
        #expect(startsOver == 3, "the log grew to \(lastPages) pages, past its size of 64, and started over \(startsOver) times")
    }

    @Test func aReaderThatHoldsTheLogBackDelaysItsStartingOverButNoWrite() async throws {
        let path = folder.file("app.sqlite")
        let database = try Database(path: path, migrations: [Self.items])
        try database.read { db throws(DatabaseError) in db.checkpointPages = 64 }
        let row = [UInt8](repeating: 7, count: 4_096)
        let write = {
            try database.write { db throws(DatabaseError) in try db.execute("INSERT INTO items (data) VALUES (?)", [.blob(row)]) }
            return try database.read { db throws(DatabaseError) in db.logPages }
        }
        _ = try write()
        // Another process reading: its snapshot keeps the log's pages from being reused.
        let reader = try Database(path: path, migrations: [Self.items])
        let (reads, released) = (Latch(), Latch())
        // The reader waits on a thread of its own, not on one of the tests' shared pool.
        async let reading: Void = onOwnThread {
            try reader.read { db throws(DatabaseError) in
                try db.execute("BEGIN")
                _ = try db.query("SELECT count(*) FROM items") { $0.int(0) }
                reads.open()
                _ = released.wait(atMost: 60)
                try db.execute("COMMIT")
            }
        }
        #expect(try await onOwnThread { reads.wait(atMost: 60) }, "the reader holds its snapshot")
        var grew: Int32 = 0
        for _ in 0..<300 { grew = max(grew, try write()) }
        #expect(grew >= 300, "the log only grew while the reader held it back (\(grew) pages)")
        #expect(try count(database) == 301, "no write waited for the reader or failed")
        released.open()
        try await reading
        var lastPages: Int32 = 0
        var startedOver = false
        for _ in 0..<2_000 where !startedOver {
            let pages = try write()
            if pages > 0 {
                startedOver = pages < lastPages
                lastPages = pages
            }
            await database.checkpointer?.waitUntilIdle()
        }
        #expect(startedOver, "once the reader is done, the log starts over")
    }

    @Test func afterACopyThatCaughtUpTheNextOneIsMadeThereToo() async throws {
        let database = try Database(path: folder.file("app.sqlite"), migrations: [Self.items])
        let checkpointer = try #require(database.checkpointer)
        try database.read { db throws(DatabaseError) in db.checkpointPages = 64 }
        let row = [UInt8](repeating: 7, count: 4_096)
        let write = {
            try database.write { db throws(DatabaseError) in try db.execute("INSERT INTO items (data) VALUES (?)", [.blob(row)]) }
            return try database.read { db throws(DatabaseError) in (pages: db.logPages, isDue: db.isCheckpointDue) }
        }
        // A burst past the log's size, then a pause in which the checkpointer copies all of it.
        while try !write().isDue {}
        await checkpointer.waitUntilIdle()
        // The next burst starts the log over and grows it past its size again: its copy is the
        // checkpointer's too, not a whole log copied where the write is made.
        let release = Latch()
        checkpointer.queue.async { _ = release.wait(atMost: 30) }
        var last = try write()
        #expect(!last.isDue, "the log started over")
        var copiedHere = 0
        for _ in 0..<200 where !last.isDue {
            last = try write()
            // The writers' connection reads its log's size as 0 right after copying it.
            if last.pages == 0 { copiedHere += 1 }
        }
        release.open()
        #expect(last.isDue && copiedHere == 0, "copied where the write was made \(copiedHere) times")
        await checkpointer.waitUntilIdle()
    }
}
