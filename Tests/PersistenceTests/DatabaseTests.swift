import Foundation
import Persistence
import StateStore
import TestSupport
import Testing

@Suite("Database")
struct DatabaseTests {
    let folder = TemporaryFolder()
    static let schema = [
        Migration(version: 1, name: "items", sql: "CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);"),
        Migration(version: 2, name: "item notes", sql: "ALTER TABLE items ADD COLUMN note TEXT;"),
    ]

    @Test func aNewFileIsOwnerOnlyInWALWithForeignKeysAndMigrated() throws {
        let path = folder.file("app.sqlite")
        let database = try Database(path: path, migrations: Self.schema)
        #expect(permissions(path) == 0o600)
        #expect(try database.userVersion == 2)
        let (mode, foreignKeys, synchronous) = try database.read { db throws(DatabaseError) in
            (
                try db.query("PRAGMA journal_mode") { $0.text(0) }.first,
                try db.query("PRAGMA foreign_keys") { $0.int(0) }.first,
                try db.query("PRAGMA synchronous") { $0.int(0) }.first
            )
        }
        #expect(mode == "wal" && foreignKeys == 1 && synchronous == 1)
        try database.write { db throws(DatabaseError) in try db.execute("INSERT INTO items (name, note) VALUES (?, ?)", ["a", nil]) }
        #expect(permissions(path + "-wal") == 0o600, "the WAL file copies the database's mode")
    }

    @Test func aFailedStatementIsNamedByWhatItDidToTheFileNeverByItsSQL() throws {
        let path = folder.file("app.sqlite")
        let database = try Database(path: path, migrations: Self.schema)
        try database.write { db throws(DatabaseError) in try db.execute("INSERT INTO items (name) VALUES (?)", ["a"]) }
        do {
            try database.write { db throws(DatabaseError) in try db.execute("INSERT INTO items (name) VALUES (?)", ["a"]) }
            Issue.record("a duplicate name was stored")
        } catch {
            #expect(error.kind == .constraint)
            #expect(error.description == "write \(path) failed: UNIQUE constraint failed: items.name")
            #expect(error.reason == "UNIQUE constraint failed: items.name")
        }
        // Each kind's words for a user name what happened and what to do, and no file.
        let full = DatabaseError(.full, operation: "write \(path)", code: 13, message: "database or disk is full")
        #expect(full.reason == "the disk is full; free some disk space and retry")
        let io = DatabaseError(.io, operation: "read \(path)", code: 10, message: "disk I/O error")
        #expect(io.reason.hasPrefix("the database file could not be read or written") && !io.reason.contains("damaged"))
    }

    @Test func closingFoldsTheLogBackAndLaterCallsFailClearly() throws {
        let path = folder.file("closing.sqlite")
        let database = try Database(path: path, migrations: Self.schema)
        try database.write { db throws(DatabaseError) in try db.execute("INSERT INTO items (name) VALUES (?)", [.text("kept")]) }
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        database.close()
        database.close()
        #expect(database.isClosed)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        #expect(!FileManager.default.fileExists(atPath: path + "-shm"))
        #expect(throws: DatabaseError.self) { try database.read { db throws(DatabaseError) in try db.query("SELECT name FROM items") { $0.text(0) } } }
        do {
            _ = try database.write { db throws(DatabaseError) in try db.execute("INSERT INTO items (name) VALUES ('late')") }
        } catch {
            #expect(error.description.contains("was closed"))
        }
        let reopened = try Database(path: path, migrations: Self.schema)
        #expect(try reopened.read { db throws(DatabaseError) in try db.query("SELECT name FROM items") { $0.text(0) } } == ["kept"])
    }

    @Test func migrationsRunOnceEachInOrder() throws {
        let path = folder.file("app.sqlite")
        _ = try Database(path: path, migrations: [Self.schema[0]])
        let database = try Database(path: path, migrations: Self.schema)
        #expect(try database.userVersion == 2)
        let again = try Database(path: path, migrations: Self.schema)
        #expect(try again.userVersion == 2)
    }

    @Test func aFailedMigrationLeavesTheOldVersion() throws {
        let path = folder.file("app.sqlite")
        _ = try Database(path: path, migrations: [Self.schema[0]])
        let broken = Migration(version: 2, name: "broken", sql: "ALTER TABLE items ADD COLUMN a TEXT; ALTER TABLE nope ADD COLUMN b TEXT;")
        #expect {
            _ = try Database(path: path, migrations: [Self.schema[0], broken])
        } throws: { error in
            let error = error as? DatabaseError
            return error?.operation.contains("migrate") == true && error?.operation.contains("version 2 (broken)") == true
        }
        #expect(try Database(path: path, migrations: [Self.schema[0]]).userVersion == 1)
    }

    @Test func anotherProgramsDatabaseIsRefusedAndLeftByteForByte() throws {
        let path = folder.file("theirs.sqlite")
        // A database another program made: a table of its own, no application id, no version.
        let program = try Database(path: path, migrations: [Migration(version: 0, name: "theirs", sql: "SELECT 1;")])
        try program.write { db throws(DatabaseError) in
            try db.execute("CREATE TABLE ledger (amount INTEGER)")
            try db.execute("INSERT INTO ledger VALUES (42)")
            try db.execute("PRAGMA user_version = 0")
        }
        program.close()
        let before = try #require(contents(path))
        do {
            _ = try Database(path: path, migrations: Self.schema, applicationID: 0x7465_7374)
            Issue.record("another program's database was opened")
        } catch {
            #expect(error.kind == .notADatabase)
            #expect(error.description.contains("another program") && error.description.contains("left untouched"))
        }
        #expect(contents(path) == before)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test func ourDatabasesAreMarkedAndOlderUnmarkedOnesAccepted() throws {
        let path = folder.file("ours.sqlite")
        _ = try Database(path: path, migrations: Self.schema)
        let marked = try Database(path: path, migrations: Self.schema, applicationID: 0x7465_7374)
        let stamp = try marked.read { db throws(DatabaseError) in try db.query("PRAGMA application_id") { $0.int(0) }.first }
        #expect(stamp == 0x7465_7374)
        marked.close()
        #expect(throws: DatabaseError.self) { _ = try Database(path: path, migrations: Self.schema, applicationID: 0x6F74_6872) }
    }

    @Test func aReadOnlyFileIsRefusedAtOnceNotWriteByWrite() throws {
        let path = folder.file("read-only.sqlite")
        _ = try Database(path: path, migrations: Self.schema)
        // Root writes any file whatever its mode, but not an immutable one.
        func chattr(_ flag: String) -> Bool {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/chattr")
            process.arguments = [flag, path]
            process.standardError = FileHandle.nullDevice
            guard (try? ChildProcesses.start(process)) != nil else { return false }
            process.waitUntilExit()
            return process.terminationStatus == 0
        }
        if getuid() == 0 {
            try #require(chattr("+i"), "cannot make the file read-only for root here (chattr)")
        } else {
            #expect(chmod(path, 0o400) == 0)
        }
        defer {
            if getuid() == 0 { _ = chattr("-i") } else { chmod(path, 0o600) }
        }
        do {
            _ = try Database(path: path, migrations: Self.schema)
            Issue.record("a read-only file was opened for writing")
        } catch {
            #expect(error.kind == .readOnly)
            #expect(error.description.contains("cannot be written"))
        }
    }

    @Test func anExistingFileOpenToOthersIsNarrowedToItsOwner() throws {
        let path = folder.file("shared.sqlite")
        _ = try Database(path: path, migrations: Self.schema)
        #expect(chmod(path, 0o644) == 0)
        let reopened = try Database(path: path, migrations: Self.schema)
        try reopened.write { db throws(DatabaseError) in try db.execute("INSERT INTO items (name) VALUES ('x')") }
        #expect(permissions(path) == 0o600)
        #expect(permissions(path + "-wal") == 0o600)
    }

    @Test func aDamagedDatabaseIsCalledDamaged() throws {
        let path = folder.file("damaged.sqlite")
        let database = try Database(path: path, migrations: Self.schema)
        try database.write { db throws(DatabaseError) in
            for number in 0..<2_000 { try db.execute("INSERT INTO items (name) VALUES (?)", [.text("item \(number) with a longer name")]) }
        }
        database.close()
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: 8_192)
        try handle.close()
        do {
            let reopened = try Database(path: path, migrations: Self.schema)
            _ = try reopened.read { db throws(DatabaseError) in try db.query("SELECT count(*) FROM items") { $0.int(0) } }
            Issue.record("a truncated database read as whole")
        } catch {
            #expect(error.kind == .damaged, "\(error)")
            #expect(error.description.contains("damaged"))
        }
    }

    @Test func aNewerSchemaIsRefusedWithoutTouchingTheFile() throws {
        let path = folder.file("app.sqlite")
        let newer = try Database(path: path, migrations: Self.schema + [Migration(version: 7, name: "future", sql: "SELECT 1;")])
        try newer.write { db throws(DatabaseError) in try db.execute("INSERT INTO items (name) VALUES ('kept')") }
        let before = try #require(contents(path))
        #expect(throws: DatabaseError.self) { _ = try Database(path: path, migrations: Self.schema) }
        do {
            _ = try Database(path: path, migrations: Self.schema)
        } catch {
            #expect(error.kind == .newerSchema)
            #expect(error.description.contains("schema version 7"))
            #expect(error.description.contains("knows up to 2"))
        }
        #expect(contents(path) == before)
    }

    @Test func aFileThatIsNotADatabaseIsRefusedAndLeftAlone() throws {
        let path = folder.file("notes.txt")
        let text = Data(String(repeating: "these are my precious notes\n", count: 200).utf8)
        #expect(FileManager.default.createFile(atPath: path, contents: text))
        do {
            _ = try Database(path: path, migrations: Self.schema)
            Issue.record("opened a text file as a database")
        } catch {
            #expect(error.kind == .notADatabase)
            #expect(error.description.contains(path))
        }
        #expect(contents(path) == text)
    }

    @Test func aMissingFolderAndAReadOnlyFileSystemAreClearErrors() {
        do {
            _ = try Database(path: folder.file("missing/app.sqlite"))
            Issue.record("opened a database in a missing folder")
        } catch {
            #expect(error.kind == .cannotOpen)
            #expect(error.description.contains("missing/app.sqlite"))
        }
        // /proc is read-only even for root, who ignores permission bits.
        do {
            _ = try Database(path: "/proc/appcore.sqlite")
            Issue.record("opened a database on a read-only file system")
        } catch {
            #expect(error.kind == .readOnly || error.kind == .cannotOpen)
        }
    }

    @Test func nestedTransactionsAreSavepoints() throws {
        let database = try Database.inMemory(migrations: Self.schema)
        try database.write { db throws(DatabaseError) in
            try db.execute("INSERT INTO items (name) VALUES ('outer')")
            do throws(DatabaseError) {
                try db.transaction { inner throws(DatabaseError) in
                    try inner.execute("INSERT INTO items (name) VALUES ('inner')")
                    try inner.execute("INSERT INTO items (name) VALUES ('outer')") // unique: fails
                }
                Issue.record("the duplicate was accepted")
            } catch {
                #expect(error.kind == .constraint)
            }
        }
        let names = try database.read { db throws(DatabaseError) in try db.query("SELECT name FROM items ORDER BY name") { $0.text(0) } }
        #expect(names == ["outer"])
        #expect(throws: DatabaseError.self) {
            try database.write { db throws(DatabaseError) in
                try db.execute("INSERT INTO items (name) VALUES ('gone')")
                try db.execute("INSERT INTO nowhere VALUES (1)")
            }
        }
        #expect(try database.read { db throws(DatabaseError) in try db.query("SELECT count(*) FROM items") { $0.int(0) } } == [1])
    }

    @Test func hostileValuesRoundTripByteForByte() throws {
        let database = try Database.inMemory(migrations: Self.schema)
        let values = [
            "Robert'); DROP TABLE items;--", "100% _sure_ \\ ", "\"quoted\" 'single'", "emoji 👩‍💻 and e\u{301} and \u{202E}rtl",
            String(repeating: "x", count: 1_000_000), "\u{1}\u{7F}\u{FFFD}", "",
        ]
        for value in values {
            try database.write { db throws(DatabaseError) in
                try db.execute("INSERT INTO items (name, note) VALUES (?, ?)", [.text(UUID().uuidString), .text(value)])
            }
        }
        let stored = try database.read { db throws(DatabaseError) in try db.query("SELECT note FROM items ORDER BY id") { $0.text(0) } }
        #expect(stored == values)
        #expect(try database.read { db throws(DatabaseError) in try db.query("SELECT count(*) FROM items") { $0.int(0) } } == [values.count])
    }

    @Test func aSecondConnectionWaitsForTheFirstInsteadOfFailing() async throws {
        let path = folder.file("shared.sqlite")
        let first = try Database(path: path, migrations: Self.schema)
        // A generous timeout: the lock goes after a 200 ms sleep, but under ThreadSanitizer, with
        // other suites beside it, that sleep has ended more than 10 s late.
        let second = try Database(path: path, migrations: Self.schema, busyTimeout: .seconds(120))
        let holder = await LockHolder.hold(first)
        let done = Flag()
        let writer = Thread {
            try? second.write { db throws(DatabaseError) in try db.execute("INSERT INTO items (name) VALUES ('second')") }
            done.set()
        }
        writer.start()
        try await Task.sleep(for: .milliseconds(200))
        #expect(!done.isSet, "the second writer waits while the first holds the lock")
        try await holder.release()
        await done.wait()
        let names = try first.read { db throws(DatabaseError) in try db.query("SELECT name FROM items") { $0.text(0) } }
        #expect(names == ["second"])
    }

    /// Two programs started together on a new file both switch it to WAL and migrate it: SQLite
    /// can refuse the switch at once to one of them (without waiting), which must be waited out.
    @Test func connectionsOpeningANewFileTogetherAllSucceed() async throws {
        for round in 0..<40 {
            let path = folder.file("together-\(round).sqlite")
            let failures = Locked<[String]>([])
            let finished = DispatchGroup()
            for opener in 0..<6 {
                finished.enter()
                Thread.detachNewThread {
                    do {
                        let database = try Database(path: path, migrations: Self.schema)
                        try database.write { db throws(DatabaseError) in try db.execute("INSERT INTO items (name) VALUES (?)", [.text("opener \(opener)")]) }
                        database.close()
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                    finished.leave()
                }
            }
            // Notified, not waited for: a blocked thread of the tasks' shared pool stalls every other test.
            await withCheckedContinuation { continuation in finished.notify(queue: .global()) { continuation.resume() } }
            #expect(failures.withLock { $0 } == [], "round \(round)")
            let database = try Database(path: path, migrations: Self.schema)
            #expect(try database.read { db throws(DatabaseError) in try db.query("PRAGMA journal_mode") { $0.text(0) } } == ["wal"])
            #expect(try database.read { db throws(DatabaseError) in try db.query("SELECT count(*) FROM items") { $0.int(0) } } == [6])
        }
    }

    @Test func aBusyDatabaseFailsClearlyAfterTheTimeout() async throws {
        let path = folder.file("shared.sqlite")
        let first = try Database(path: path, migrations: Self.schema)
        let second = try Database(path: path, migrations: Self.schema, busyTimeout: .milliseconds(50))
        let holder = await LockHolder.hold(first)
        do {
            try second.write { db throws(DatabaseError) in try db.execute("INSERT INTO items (name) VALUES ('second')") }
            Issue.record("the second writer did not wait for the lock")
        } catch {
            #expect(error.kind == .busy)
            #expect(error.description.contains("another process is using the database"))
        }
        try await holder.release()
    }
}

@Suite("Database faults")
struct DatabaseFaultTests {
    let folder = TemporaryFolder()

    /// `max_page_count` caps the file the way a full disk does: SQLite answers SQLITE_FULL.
    @Test func aFullDatabaseIsAClearErrorAndKeepsWhatWasStored() throws {
        let database = try Database(path: folder.file("full.sqlite"), migrations: DatabaseTests.schema)
        try database.write { db throws(DatabaseError) in try db.execute("INSERT INTO items (name, note) VALUES ('kept', 'safe')") }
        let pages = try database.read { db throws(DatabaseError) in try db.query("PRAGMA page_count") { $0.int(0) }.first ?? 0 }
        try database.read { db throws(DatabaseError) in _ = try db.query("PRAGMA max_page_count = \(pages)") { $0.int(0) } }
        do {
            try database.write { db throws(DatabaseError) in
                try db.execute("INSERT INTO items (name, note) VALUES (?, ?)", ["big", .text(String(repeating: "x", count: 200_000))])
            }
            Issue.record("a write beyond the cap succeeded")
        } catch {
            #expect(error.kind == .full)
            #expect(error.description.contains("free some disk space"))
        }
        let names = try database.read { db throws(DatabaseError) in try db.query("SELECT name FROM items") { $0.text(0) } }
        #expect(names == ["kept"])
    }

    static let holderDatabase = ProcessInfo.processInfo.environment["APPCORE_LOCK_HOLDER_DB"]

    /// The other process: holds the write lock until the parent creates `<db>.release`, then
    /// commits. Released by the parent, not by a timer, so a loaded machine cannot make the
    /// lock go away before the parent tries it.
    @Test(.enabled(if: holderDatabase != nil, "runs only as the child process of anotherProcess…"))
    func lockHolderChild() throws {
        let path = try #require(Self.holderDatabase)
        let database = try Database(path: path, migrations: DatabaseTests.schema)
        try database.write { db throws(DatabaseError) in
            try db.execute("INSERT INTO items (name) VALUES ('from the other process')")
            FileHandle.standardOutput.write(Data("holding\n".utf8))
            let deadline = Date().addingTimeInterval(300)
            while !FileManager.default.fileExists(atPath: path + ".release"), Date() < deadline {
                Thread.sleep(forTimeInterval: 0.005)
            }
        }
    }

    @Test func anotherProcessWritingMakesThisOneWaitNotFail() async throws {
        let path = folder.file("shared.sqlite")
        // Generous, as in `aSecondConnectionWaitsForTheFirstInsteadOfFailing`.
        let database = try Database(path: path, migrations: DatabaseTests.schema, busyTimeout: .seconds(120))
        let child = try TestChild(running: "lockHolderChild", environment: ["APPCORE_LOCK_HOLDER_DB": path])
        await child.waitForLine(timeout: .seconds(120)) { $0.contains("holding") }
        try #require(child.lines.contains("holding"), "the other process holds the write lock")
        let done = Flag()
        let writer = Thread {
            try? database.write { db throws(DatabaseError) in try db.execute("INSERT INTO items (name) VALUES ('from this process')") }
            done.set()
        }
        writer.start()
        try await Task.sleep(for: .milliseconds(200))
        #expect(!done.isSet, "this process waits while the other holds the lock")
        #expect(FileManager.default.createFile(atPath: path + ".release", contents: Data()))
        await done.wait()
        child.waitUntilExit()
        #expect(child.process.terminationStatus == 0)
        let names = try database.read { db throws(DatabaseError) in try db.query("SELECT name FROM items ORDER BY id") { $0.text(0) } }
        #expect(names == ["from the other process", "from this process"])
        let integrity = try database.read { db throws(DatabaseError) in try db.query("PRAGMA integrity_check") { $0.text(0) } }
        #expect(integrity == ["ok"])
    }
}
