import Foundation
import Persistence
import TestSupport
import Testing

/// Signals end the shells the way quitting does: every answered line is kept, the database is
/// closed (no `-wal` or `-shm` left) and the exit status is 128 + the signal.
@Suite("Signals and closed pipes")
struct SignalTests {
    /// A running shell fed through a pipe that stays open, read until it has answered.
    final class Driven: @unchecked Sendable {
        let process = Process()
        let input = ChildProcesses.pipe(), output = ChildProcesses.pipe(), errors = ChildProcesses.pipe()
        private var read = Data()

        init(_ name: String, _ arguments: [String], folder: String, environment: [String: String] = [:]) throws {
            process.executableURL = try TwoProcessTests.executable(name)
            process.arguments = arguments
            process.environment = ["HOME": folder, "XDG_DATA_HOME": folder, "NO_COLOR": "1"].merging(environment) { $1 }
            process.standardInput = input
            process.standardOutput = output
            process.standardError = errors
            try ChildProcesses.start(process)
        }

        func send(_ lines: [String]) {
            input.fileHandleForWriting.write(Data((lines.joined(separator: "\n") + "\n").utf8))
        }

        /// Reads standard output until `isDone` holds for what was read (or it ends).
        func read(until isDone: @escaping @Sendable (String) -> Bool) async throws -> String {
            try await onOwnThread { [self] in
                while !isDone(String(decoding: read, as: UTF8.self)) {
                    let chunk = output.fileHandleForReading.availableData
                    if chunk.isEmpty { break }
                    read += chunk
                }
                return String(decoding: read, as: UTF8.self)
            }
        }

        /// The whole lines of standard output, read until there are `count` (or it ended): cost
        /// by the bytes read, for replies of megabytes.
        func lines(atLeast count: Int) async throws -> [Data] {
            try await onOwnThread { [self] in
                while completeLines.count < count {
                    let chunk = output.fileHandleForReading.availableData
                    if chunk.isEmpty { break }
                    let offset = read.count
                    read += chunk
                    // Scanned through a buffer: Data's own search is slow in a debug build.
                    let ends = chunk.withUnsafeBytes { bytes in bytes.indices.filter { bytes[$0] == UInt8(ascii: "\n") } }
                    for end in ends {
                        completeLines.append(read.subdata(in: lineStart..<(offset + end)))
                        lineStart = offset + end + 1
                    }
                }
                return completeLines
            }
        }
        private var completeLines: [Data] = []
        private var lineStart = 0

        func end(with signal: Int32) async throws -> (status: Int32, errors: String) {
            kill(process.processIdentifier, signal)
            try await onOwnThread { [process] in process.waitUntilExit() }
            try? input.fileHandleForWriting.close()
            return (process.terminationStatus, String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
        }
    }

    /// A fresh folder (removed with the value) and the path of a database in it.
    static func databaseFolder(_ prefix: String) throws -> (TemporaryFolder, String) {
        let folder = TemporaryFolder(prefix)
        try FileManager.default.createDirectory(atPath: folder.path, withIntermediateDirectories: true)
        return (folder, folder.path + "/app.sqlite")
    }

    static func leftovers(_ path: String) -> [String] {
        ["-wal", "-shm"].filter { FileManager.default.fileExists(atPath: path + $0) }
    }

    @Test(arguments: [SIGTERM, SIGINT, SIGHUP])
    func serveKeepsEveryAnsweredIntent(signal: Int32) async throws {
        let (folder, path) = try Self.databaseFolder("appcore-signal")
        let answered = Int.random(in: 1...40)
        let serve = try Driven("appcore-serve", [path], folder: folder.path)
        serve.send(Array(repeating: #"{"increment":{}}"#, count: answered))
        _ = try await serve.read { $0.split(separator: "\n").count >= answered }
        let (status, errors) = try await serve.end(with: signal)
        #expect(status == 128 + signal, "standard error: \(errors)")
        #expect(Self.leftovers(path).isEmpty, "the database was closed")

        let again = try Driven("appcore-serve", [path], folder: folder.path)
        again.send([#"{"increment":{}}"#])
        let reply = try await again.read { $0.contains("\n") }
        #expect(reply.contains(#""count":\#(answered + 1)"#), "every answered increment was kept: \(reply)")
        _ = try await again.end(with: SIGTERM)
    }

    @Test(arguments: [DurableAnswerTests.Shell.serve, .batch])
    func aShellWritesTheAnswersItHeldWhenASignalEndsIt(shell: DurableAnswerTests.Shell) async throws {
        let (folder, path) = try Self.databaseFolder("appcore-signal-held")
        let running = try Driven(shell.name, shell.arguments(path), folder: folder.path)
        // Lines waiting in its input: the shell holds their answers and writes them 64 KiB at a time.
        running.send(shell.signIn + Array(repeating: shell.increment, count: 3_000))
        _ = try await running.read { shell.lastCount($0) != nil }
        // Read to the end meanwhile: a full pipe would hold the shell's writes, and its ending.
        async let printed = running.read { _ in false }
        let (status, errors) = try await running.end(with: SIGTERM)
        #expect(status == 128 + SIGTERM, "standard error: \(errors)")
        let answered = try #require(shell.lastCount(try await printed))

        let again = try Driven(shell.name, shell.arguments(path), folder: folder.path)
        again.send(shell.signIn.dropFirst() + [shell.increment])
        let kept = try #require(shell.lastCount(try await again.read { shell.lastCount($0) != nil })) - 1
        _ = try await again.end(with: SIGTERM)
        #expect(kept >= answered, "every answered increment was kept")
        // At most the increment running when the signal came is kept and not answered.
        #expect(kept - answered <= 1, "the replies held were written before serve ended: answered \(answered), kept \(kept)")
    }

    @Test(arguments: [SIGTERM, SIGINT, SIGHUP])
    func aPipedREPLKeepsEveryAnsweredLine(signal: Int32) async throws {
        let (folder, path) = try Self.databaseFolder("appcore-signal-repl")
        let answered = Int.random(in: 1...30)
        let repl = try Driven("appcore-repl", ["--db", path], folder: folder.path)
        // Each answer arrives as soon as its line ran, while the pipe stays open.
        repl.send(Array(repeating: "counter.increment", count: answered))
        _ = try await repl.read { $0.contains("counter: \(answered)\n") }
        let (status, errors) = try await repl.end(with: signal)
        #expect(status == 128 + signal, "standard error: \(errors)")
        #expect(Self.leftovers(path).isEmpty)

        let again = try Driven("appcore-repl", ["--db", path], folder: folder.path)
        again.send(["counter.increment", "quit"])
        let said = try await again.read { $0.contains("counter: ") }
        #expect(said.contains("counter: \(answered + 1)"), "\(said)")
        try await onOwnThread { [again] in again.process.waitUntilExit() }
        #expect(again.process.terminationStatus == 0)
    }

    @Test(arguments: [SIGTERM, SIGHUP])
    func theBatchRunnerClosesItsDatabaseAndKeepsEverySavedNote(signal: Int32) async throws {
        let (folder, path) = try Self.databaseFolder("appcore-signal-batch")
        let signIn = ["login.username alice.liddell", "login.password wonderland", "login.submit"]
        let notes = Int.random(in: 1...20)
        let batch = try Driven("appcore-batch", ["--json", "--env", "live", "--db", path, "-"], folder: folder.path)
        // Signing up and in hash the password, which on a loaded machine can outlast the 5 s a
        // line waits for its effects: `wait` waits until they have ended, before any note.
        batch.send(["signup alice.liddell wonderland"] + signIn + ["wait 120s"])
        _ = try await batch.read { $0.split(separator: "\n").count >= 5 }
        batch.send((1...notes).map { "notes.add \"note \($0)\"" })
        let answers = try await batch.read { $0.split(separator: "\n").count >= 5 + notes }
        // Every note was answered as added: each is one the database must keep.
        let added = answers.split(separator: "\n").dropFirst(5)
        #expect(added.count == notes && added.allSatisfy { $0.contains(#""ok":true"#) }, "\(answers)")
        let (status, errors) = try await batch.end(with: signal)
        #expect(status == 128 + signal, "standard error: \(errors)")
        #expect(Self.leftovers(path).isEmpty)

        // Counted in the file, not through a second batch run, whose sign in could outlast its
        // line's 5 s too (a CI run read 0 of 13 notes that way: the sign in had not ended).
        let database = try Database(path: path, migrations: AppSchema.migrations)
        let stored = try database.read { db throws(DatabaseError) in try db.query("SELECT count(*) FROM notes") { $0.int(0) } }
        database.close()
        #expect(stored == [notes], "every note answered is in the database")
    }

    @Test func serveEndsLikeQuittingWhenItsReaderGoesAway() async throws {
        // Writing to serve after it ended must fail here, not end this process.
        signal(SIGPIPE, SIG_IGN)
        let (folder, path) = try Self.databaseFolder("appcore-pipe")
        let serve = try Driven("appcore-serve", [path], folder: folder.path)
        serve.send([#"{"increment":{}}"#])
        _ = try await serve.read { $0.contains("\n") }
        try serve.output.fileHandleForReading.close()
        // No other child holds a copy of the read end (`ChildProcesses`): the next reply fails.
        serve.send([#"{"increment":{}}"#])
        if !(await eventually { !serve.process.isRunning }) {
            Issue.record("appcore-serve still runs \(patience) after its reader went away")
            serve.process.terminate()
        }
        try await onOwnThread { [serve] in serve.process.waitUntilExit() }
        #expect(serve.process.terminationReason == .exit && serve.process.terminationStatus == 141)
        #expect(Self.leftovers(path).isEmpty)
    }

    @Test func serveSaysInOneLineWhyItCannotOpen() async throws {
        let folder = TemporaryFolder("appcore-open")
        try FileManager.default.createDirectory(atPath: folder.path, withIntermediateDirectories: true)
        try Data("not a database, just text".utf8).write(to: URL(fileURLWithPath: folder.path + "/foreign.sqlite"))
        for path in [folder.path + "/missing/app.sqlite", folder.path + "/foreign.sqlite"] {
            let serve = try Driven("appcore-serve", [path], folder: folder.path)
            try serve.input.fileHandleForWriting.close()
            try await onOwnThread { [serve] in serve.process.waitUntilExit() }
            let said = String(decoding: serve.errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(serve.process.terminationStatus == 2)
            #expect(said.hasPrefix("appcore-serve: ") && said.split(separator: "\n").count == 1, "\(said)")
        }
    }
}

/// What a killed process and damaged bytes leave behind, seen through the built executables.
@Suite("Killed processes and damaged journals")
struct KilledAndDamagedTests {
    @Test func tenKilledProcessesLeaveOneStreamAndLoseNothingAnswered() async throws {
        let (folder, path) = try SignalTests.databaseFolder("appcore-kill")
        for round in 1...10 {
            let serve = try SignalTests.Driven("appcore-serve", [path], folder: folder.path)
            serve.send([#"{"increment":{}}"#])
            let reply = try await serve.read { $0.contains("\n") }
            #expect(reply.contains(#""count":\#(round)"#), "round \(round): \(reply)")
            // The answer comes after the commit that keeps it: nothing to wait for before the kill.
            _ = try await serve.end(with: SIGKILL)
        }
        let database = try Database(path: path, migrations: AppSchema.migrations)
        let streams = try database.read { db throws(DatabaseError) in try db.query("SELECT count(*) FROM journal_streams") { $0.int(0) } }
        #expect(streams == [1], "each start removes the streams of processes that are gone")
        database.close()
    }

    @Test func aDamagedJournalBatchIsSkippedWithAWarningAndTheDatabaseOpens() async throws {
        let (folder, path) = try SignalTests.databaseFolder("appcore-damage")
        let serve = try SignalTests.Driven("appcore-serve", [path], folder: folder.path)
        serve.send([#"{"increment":{}}"#])
        _ = try await serve.read { $0.contains("\n") } // open, and answering
        let journaled = { () throws -> Int in
            let reader = try Database(readingOnly: path, migrations: AppSchema.migrations)
            defer { reader.close() }
            return try reader.read { db throws(DatabaseError) in
                try db.query("SELECT coalesce(sum(count), 0) FROM journal") { $0.int(0) }.first ?? 0
            }
        }
        for _ in 1...5 {
            // One journal batch each: the next increment is sent once this one is durable.
            let before = try journaled()
            serve.send([#"{"increment":{}}"#])
            for _ in 0..<1_000 where try journaled() == before { try await Task.sleep(for: .milliseconds(10)) }
        }
        // Killed, so its journal keeps its batches (a clean close compacts them to a snapshot).
        _ = try await serve.end(with: SIGKILL)
        let database = try Database(path: path, migrations: AppSchema.migrations)
        try database.write { db throws(DatabaseError) in
            try db.execute("UPDATE journal SET actions = X'0102030405' WHERE first_sequence = (SELECT max(first_sequence) FROM journal)")
        }
        database.close()

        let again = try SignalTests.Driven("appcore-serve", [path], folder: folder.path)
        again.send([#"{"increment":{}}"#])
        let reply = try await again.read { $0.contains("\n") }
        try again.input.fileHandleForWriting.close()
        try await onOwnThread { [again] in again.process.waitUntilExit() }
        let said = String(decoding: again.errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(again.process.terminationStatus == 0)
        #expect(reply.contains(#""count":6"#), "one of six increments lost with its batch, the others kept, one more: \(reply)")
        #expect(said.hasPrefix("appcore: the journal is damaged: actions ") && said.contains("were skipped"), "\(said)")
    }
}
