import AppHost
import Foundation
import Persistence
import StateStore
import TestSupport
import Testing

/// A database file shared by processes stays whole: no process drops the locks SQLite holds on
/// it, and a file deleted or replaced under a process is noticed, not written into unseen.
@Suite("A shared database file")
struct SharedFileTests {
    /// The POSIX locks process `pid` holds on the file at `path`, as `/proc/locks` lists them.
    static func locks(of pid: Int32, on path: String) throws -> [String] {
        var status = stat()
        try #require(stat(path, &status) == 0)
        let table = try String(contentsOfFile: "/proc/locks", encoding: .utf8)
        return table.split(separator: "\n").filter { line in
            // "1: POSIX  ADVISORY  READ 1234 08:01:5678 128 128"
            let fields = line.split(separator: " ")
            guard let kind = fields.firstIndex(of: "POSIX"), fields.count > kind + 4 else { return false }
            let device = fields[kind + 4].split(separator: ":")
            return Int32(fields[kind + 3]) == pid && device.count == 3 && UInt64(device[2]) == UInt64(status.st_ino)
        }.map(String.init)
    }

    typealias Run = (status: Int32, output: String, errors: String)

    /// Runs `appcore-serve` on `path` with `lines` as its input, written while its replies are
    /// read (a long input and long replies would fill both pipes otherwise).
    static func serve(_ path: String, lines: [String] = [], folder: String, arguments: [String] = []) async throws -> Run {
        try await serve(arguments: ["--db", path] + arguments, lines: lines, folder: folder)
    }

    /// Runs `appcore-serve` with `arguments` and `lines`, as ``serve(_:lines:folder:arguments:)``.
    static func serve(arguments: [String], lines: [String], folder: String) async throws -> Run {
        try await serve(arguments: arguments, input: lines.map { $0 + "\n" }.joined(), folder: folder)
    }

    /// Runs `appcore-serve` in `folder` (its working directory and home) with `arguments` and
    /// `input`, written while its output is read.
    static func serve(arguments: [String], input: String, folder: String) async throws -> Run {
        try await onOwnThread {
            let process = Process()
            process.executableURL = try TwoProcessTests.executable("appcore-serve")
            process.arguments = arguments
            process.currentDirectoryURL = URL(fileURLWithPath: folder)
            process.environment = ["HOME": folder]
            let stdin = ChildProcesses.pipe(), stdout = ChildProcesses.pipe(), stderr = ChildProcesses.pipe()
            process.standardInput = stdin
            process.standardOutput = stdout
            process.standardError = stderr
            // A serve that ends early closes its input: writing then must fail, not kill the tests.
            signal(SIGPIPE, SIG_IGN)
            try ChildProcesses.start(process)
            let input = Data(input.utf8)
            let writer = Thread {
                try? stdin.fileHandleForWriting.write(contentsOf: input)
                try? stdin.fileHandleForWriting.close()
            }
            writer.start()
            let errors = Locked(Data())
            let errorsRead = DispatchSemaphore(value: 0)
            Thread {
                errors.withLock { $0 = stderr.fileHandleForReading.readDataToEndOfFile() }
                errorsRead.signal()
            }.start()
            let output = String(decoding: stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            errorsRead.wait()
            return (process.terminationStatus, output, String(decoding: errors.withLock { $0 }, as: UTF8.self))
        }
    }

    /// How many descriptors process `pid` holds on the file at `path`.
    static func descriptors(of pid: Int32, on path: String) -> Int {
        let folder = "/proc/\(pid)/fd"
        let links = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return links.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/" + $0)) == path }.count
    }

    @Test func aProcessKeepsItsLocksWhenItsCheckpointerOpensAndAnotherProcessOpensAndQuits() async throws {
        let (folder, path) = try SignalTests.databaseFolder("appcore-locks")
        let writer = try ConflictTests.Serve(path, folder: folder.path)
        let pid = writer.driven.process.processIdentifier
        _ = try await writer.perform(ConflictTests.signIn("alice.liddell", signingUp: true))
        // About 22 MB of notes: the log passes a checkpoint, and the checkpointer opens a
        // connection of its own (a second descriptor of the file).
        let long = String(repeating: "x", count: 900_000)
        // One at a time: each reply holds the note's text (the selected note's), which would fill
        // the pipe while the next line is written.
        for number in 0..<24 {
            #expect(ConflictTests.status(try await writer.perform([#"{"addNote":{"text":"\#(number) \#(long)"}}"#])[0]).completed)
        }
        #expect(await eventually { Self.descriptors(of: pid, on: path) >= 2 }, "the checkpointer never opened its connection")
        #expect(try !Self.locks(of: pid, on: path).isEmpty, "SQLite's lock on the database file is gone once the checkpointer opened")

        // A process that opens the file and quits must not take it for unused.
        let other = try await Self.serve(path, folder: folder.path)
        #expect(other.status == 0, "\(other.errors)")
        #expect(FileManager.default.fileExists(atPath: path + "-wal"), "the other process removed the log of a database still open")
        for number in 0..<4 {
            #expect(ConflictTests.status(try await writer.perform([#"{"addNote":{"text":"after \#(number) \#(long)"}}"#])[0]).completed)
        }
        _ = try await writer.driven.end(with: SIGTERM)
        let database = try Database(readingOnly: path, migrations: AppSchema.migrations)
        defer { database.close() }
        let check = try database.read { db throws(DatabaseError) in try db.query("PRAGMA integrity_check") { $0.text(0) } }
        #expect(check == ["ok"])
        let notes = try database.read { db throws(DatabaseError) in try db.query("SELECT count(*) FROM notes") { $0.int(0) } }
        #expect(notes == [28])
    }

    /// Others' writes can hold the write lock past one busy timeout while a process starts
    /// (fifty writers at once): its host waits for the lock to start its journal, instead of
    /// failing to open at the first timeout.
    @Test func aHostOpensOnceAWriteLockHeldPastOneBusyTimeoutGoes() async throws {
        let (folder, path) = try SignalTests.databaseFolder("appcore-busy-open")
        try AppSchema.open(path).close()
        let holder = try TestChild(running: "writeLockHolderChild", environment: ["APPCORE_WRITE_LOCK_HOLDER_DB": path])
        await holder.waitForLine(timeout: patience) { $0.contains("holding") }
        try #require(holder.lines.contains("holding"), "another process holds the write lock")
        let host = try await AppHost(storage: .database(path: path), options: AppHost.Options(history: nil))
        #expect(await host.perform(.increment, timeout: patience).status == .completed)
        try await host.close()
        try await onOwnThread { holder.waitUntilExit() }
        _ = folder
    }

    static let writeLockHolderDatabase = ProcessInfo.processInfo.environment["APPCORE_WRITE_LOCK_HOLDER_DB"]

    /// The other process: holds the write lock of an AppCore database for 7 s, past the 5 s
    /// busy timeout, then lets it go.
    @Test(.enabled(if: writeLockHolderDatabase != nil, "runs only as the child process of aHostOpensOnce…"))
    func writeLockHolderChild() throws {
        let path = try #require(Self.writeLockHolderDatabase)
        let database = try AppSchema.open(path)
        defer { database.close() }
        // A writer among others: it has written before, and holds the lock for a long write.
        try database.write { db throws(DatabaseError) in try db.execute("CREATE TABLE written (x)") }
        try database.write { db throws(DatabaseError) in
            try db.execute("INSERT INTO written VALUES (1)")
            FileHandle.standardOutput.write(Data("holding\n".utf8))
            Thread.sleep(forTimeInterval: 7)
        }
    }

    @Test func fiftyWritersKeepEveryAcknowledgedNoteAndTheFileWhole() async throws {
        let (folder, path) = try SignalTests.databaseFolder("appcore-fifty")
        let (writers, adds) = (50, 8)
        // Long notes (100 KB) make the log pass a checkpoint in several of the processes.
        let runs = try await withThrowingTaskGroup(of: (Int, Run).self) { group in
            for writer in 0..<writers {
                let user = "writer.\(writer)"
                let lines =
                    ConflictTests.signIn(user, signingUp: true)
                    + (0..<adds).map { #"{"addNote":{"text":"\#(user) note \#($0) \#(String(repeating: "x", count: $0 % 2 == 0 ? 100_000 : 10))"}}"# }
                group.addTask { (writer, try await Self.serve(path, lines: lines, folder: folder.path)) }
            }
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        let database = try Database(readingOnly: path, migrations: AppSchema.migrations)
        defer { database.close() }
        var (lost, acknowledgedInAll) = (0, 0)
        for writer in 0..<writers {
            let run = try #require(runs[writer])
            // Fifty processes closing at once wait their turns for the write lock; on a loaded
            // machine one may reach the shells' ending time first, and end saying so (exit 2):
            // what it answered is kept all the same, as checked below.
            let endedInTime = run.status == 2 && run.errors.contains("the database did not answer within")
            // Or its opening waited past the busy timeout for the others' writes: it says so and
            // answers nothing.
            let refusedToOpen = run.status == 2 && run.errors.contains("another process is using the database") && run.output.isEmpty
            #expect(run.status == 0 || endedInTime || refusedToOpen, "writer \(writer): \(run.errors)")
            if refusedToOpen { continue }
            let replies = run.output.split(separator: "\n")
            #expect(replies.count == adds + 4, "writer \(writer): every line is answered")
            // On a loaded machine a write may wait past the busy timeout: it is then refused,
            // saying so, never acknowledged and lost; what follows says why it cannot go on (no
            // account to sign in to, or not signed in).
            let busy = { (reply: Substring) in reply.lowercased().contains("another process is using the database") }
            let signUpRefused = replies.first.map(busy) ?? false
            for reply in replies where !reply.contains(#""status":{"completed""#) {
                #expect(
                    busy(reply) || reply.contains("not signed in") || (signUpRefused && reply.contains("username or password is incorrect")),
                    "writer \(writer): \(reply.suffix(600))")
            }
            let acknowledged = replies.dropFirst(4).filter { $0.contains(#""status":{"completed""#) }.count
            let stored = try database.read { db throws(DatabaseError) in
                try db.query("SELECT count(*) FROM notes WHERE text LIKE ?", [.text("writer.\(writer) note %")]) { $0.int(0) }.first ?? 0
            }
            #expect(stored <= adds)
            lost += max(0, acknowledged - stored)
            acknowledgedInAll += acknowledged
        }
        #expect(acknowledgedInAll > 0)
        #expect(lost == 0, "acknowledged notes missing")
        let check = try database.read { db throws(DatabaseError) in try db.query("PRAGMA integrity_check") { $0.text(0) } }
        #expect(check == ["ok"])
    }
}

/// What `appcore-serve` refuses it leaves exactly as it was.
@Suite("Files the shells refuse")
struct RefusedByShellTests {
    @Test func aTextFileKeepsItsModeAndGetsNoSideFilesAndADeviceIsRefusedBeforeAnything() async throws {
        let (folder, _) = try SignalTests.databaseFolder("appcore-refused")
        let text = folder.path + "/notes.txt"
        #expect(FileManager.default.createFile(atPath: text, contents: Data("precious\n".utf8), attributes: [.posixPermissions: 0o644]))
        let run = try await SharedFileTests.serve(text, lines: [#"{"increment":{}}"#], folder: folder.path)
        #expect(run.status == 2)
        #expect(run.errors.contains("not an AppCore database and was left untouched"), "\(run.errors)")
        let attributes = try FileManager.default.attributesOfItem(atPath: text)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o644)
        #expect(try ServeCommandLineTests.made(in: folder.path) == ["notes.txt"])

        let device = try await SharedFileTests.serve("/dev/null", lines: [#"{"increment":{}}"#], folder: folder.path)
        #expect(device.status == 2)
        #expect(device.errors.contains("/dev/null is a character device, not a regular file"), "\(device.errors)")
        #expect(!FileManager.default.fileExists(atPath: "/dev/null-journal"))
    }
}

/// Nothing but SQLite opens a database's files while it is open: the shells refuse to record a
/// script into them or run them as scripts.
@Suite("The database's files are SQLite's alone")
struct DatabaseFilesTests {
    @Test func recordingIntoTheDatabaseOrRunningItAsAScriptIsRefused() async throws {
        let (folder, path) = try SignalTests.databaseFolder("appcore-own-files")
        let printed = try await REPLTests.runPiped(
            ["--db", path],
            input: "counter.increment\nrecord \(path) --force\nrecord \(folder.path)/./app.sqlite-wal --force\ncounter.increment\n",
            environment: ["HOME": folder.path])
        #expect(printed.components(separatedBy: "is the database or one of its files; record to another file").count == 3, "\(printed)")
        #expect(printed.contains("counter: 2"))
        let batch = try await BatchTests.batch(["--env", "live", "--db", path, path])
        #expect(batch.status == 2)
        #expect(batch.errors.contains("is the database or one of its files"), "\(batch.errors)")
        let database = try Database(readingOnly: path, migrations: AppSchema.migrations)
        defer { database.close() }
        #expect(try database.read { db throws(DatabaseError) in try db.query("PRAGMA integrity_check") { $0.text(0) } } == ["ok"])
    }
}

/// A database deleted, or replaced by another file, under a running process is noticed at the
/// next write: that write fails saying so, nothing is written elsewhere, and the process ends
/// with a failure status.
@Suite("A database lost under a running process")
struct LostFileTests {
    enum Loss: String, CaseIterable, Sendable {
        case deleted, replaced
    }

    @Test(arguments: Loss.allCases)
    func serveFailsTheNextWriteAndEndsNonZero(loss: Loss) async throws {
        let (folder, path) = try SignalTests.databaseFolder("appcore-lost")
        let serve = try ConflictTests.Serve(path, folder: folder.path)
        let before = try await serve.perform(
            ConflictTests.signIn("alice.liddell", signingUp: true) + [#"{"addNote":{"text":"kept 1"}}"#, #"{"addNote":{"text":"kept 2"}}"#])
        #expect(before.allSatisfy { ConflictTests.status($0).completed })
        let other = folder.path + "/other.sqlite"
        switch loss {
        case .deleted:
            #expect(unlink(path) == 0)
        case .replaced:
            AppSchemaFile.make(other)
            #expect(rename(other, path) == 0)
        }
        let lost = try await serve.perform([#"{"addNote":{"text":"lost"}}"#])
        let status = ConflictTests.status(lost[0])
        #expect(!status.completed)
        #expect(status.reason?.contains("deleted or replaced") == true, "\(lost)")
        try await onOwnThread { serve.driven.process.waitUntilExit() }
        #expect(serve.driven.process.terminationStatus != 0)
        let errors = String(decoding: serve.driven.errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(errors.contains("deleted or replaced"), "\(errors)")
        if loss == .replaced {
            // The file now at the path is the other one, and nothing of the lost process's went in.
            let database = try Database(readingOnly: path, migrations: AppSchema.migrations)
            defer { database.close() }
            let notes = try database.read { db throws(DatabaseError) in try db.query("SELECT count(*) FROM notes") { $0.int(0) }.first }
            #expect(notes == 0)
        }
    }
}

/// An empty AppCore database, made and closed.
enum AppSchemaFile {
    static func make(_ path: String) {
        if let database = try? AppSchema.open(path) { database.close() }
    }
}
