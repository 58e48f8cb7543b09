import AppEnvironment
import AppHost
import Foundation
import Persistence
import Reducers
import TestSupport
import Testing

/// Two REPLs on one database at the same time, as two terminals would run them.
@Suite("Two processes, one database")
struct TwoProcessTests {
    static func executable(_ name: String) throws -> URL {
        URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            .deletingLastPathComponent().appendingPathComponent(name)
    }

    /// Starts `appcore-repl` on `database` reading `lines` from a pipe.
    static func repl(_ database: String, lines: [String], folder: String) throws -> (Process, Pipe, Pipe) {
        let process = Process()
        process.executableURL = try executable("appcore-repl")
        process.arguments = ["--db", database]
        process.environment = ["HOME": folder, "XDG_DATA_HOME": folder]
        let input = ChildProcesses.pipe(), output = ChildProcesses.pipe(), errors = ChildProcesses.pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try ChildProcesses.start(process)
        input.fileHandleForWriting.write(Data((lines.joined(separator: "\n") + "\n").utf8))
        try input.fileHandleForWriting.close()
        return (process, output, errors)
    }

    /// Runs `lines` as a script of `appcore-batch` on the live clients of `database`, quietly;
    /// its exit status.
    static func batch(_ lines: String, on database: String, scriptAt script: String) async throws -> Int32 {
        try lines.write(toFile: script, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = try executable("appcore-batch")
        process.arguments = ["--env", "live", "--db", database, "--quiet", script]
        process.standardOutput = FileHandle.nullDevice
        try ChildProcesses.start(process)
        try await onOwnThread { process.waitUntilExit() }
        return process.terminationStatus
    }

    static func session(_ user: String, notes: Int) -> [String] {
        ["signup \(user) wonderland", "login.username \(user)", "login.password wonderland", "login.submit", "wait 120s"]
            + (0..<notes).flatMap { ["notes.add \"\(user) \($0)\"", "counter.increment"] }
    }

    @Test func bothProcessesKeepEveryAcknowledgedNoteAndAction() async throws {
        let folder = NSTemporaryDirectory() + "appcore-two-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/shared.sqlite"
        let count = 30
        let first = try Self.repl(path, lines: Self.session("alice.liddell", notes: count), folder: folder)
        let second = try Self.repl(path, lines: Self.session("bob.builder", notes: count), folder: folder)
        let outputs = try await onOwnThread {
            [first, second].map { String(decoding: $0.1.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) }
        }
        for (process, _, errors) in [first, second] {
            try await onOwnThread { process.waitUntilExit() }
            let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(process.terminationReason == .exit && process.terminationStatus == 0, "standard error: \(said)")
        }
        for output in outputs {
            #expect(!output.contains("error:"), "\(output)")
        }

        // Each process's journal stream holds every action it acknowledged.
        let database = try Database(path: path, migrations: AppSchema.migrations)
        let streams = try database.read { db throws(DatabaseError) in
            try db.query("SELECT stream, closed FROM journal_streams") { ($0.text(0), $0.int(1)) }
        }
        #expect(streams.count == 2 && streams.allSatisfy { $0.1 == 1 }, "\(streams)")
        // A clean close compacts each stream to the state it ended in.
        var inserted: Set<String> = []
        for (stream, _) in streams {
            let journal = try Journal<AppFeature.State, AppFeature.Action>(database: database, stream: stream)
            let (state, replayed) = try journal.restore(from: AppFeature.State(), using: AppFeature(environment: .noop()))
            #expect(replayed == 0)
            inserted.formUnion(state.notes.items.map(\.note.text))
            #expect(state.counter.count >= count, "every increment the process acknowledged is in its state")
        }
        let expected = Set((0..<count).flatMap { ["alice.liddell \($0)", "bob.builder \($0)"] })
        #expect(inserted == expected)
        database.close()

        // The notes both stored are there for each user, from a third process.
        for user in ["alice.liddell", "bob.builder"] {
            let status = try await Self.batch(
                """
                login.username \(user)
                login.password wonderland
                login.submit
                wait 120s
                expect notes.count == \(count)
                """, on: path, scriptAt: folder + "/\(user).script")
            #expect(status == 0, "\(user)'s notes are not all there")
        }
    }

    @Test func aNoteWrittenByAnotherProcessArrivesInAHostsChangesByItself() async throws {
        let folder = NSTemporaryDirectory() + "appcore-external-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/shared.sqlite"
        let host = try await AppHost(storage: .database(path: path), options: AppHost.Options(history: nil, live: .testing))
        for intent: Intent in [
            .signUp(username: "alice.liddell", password: "wonderland"), .typeUsername(username: "alice.liddell"),
            .typePassword(password: "wonderland"), .signIn,
        ] {
            #expect(await host.perform(intent).status == .completed)
        }
        let notesActions = Locked<[Notes.Action]>([])
        let watching = host.store.observeActions { action, _ in
            if case .notes(let notes) = action { notesActions.withLock { $0.append(notes) } }
        }
        let arrived = Task {
            for await screens in host.changes() where screens.notes.rows.map(\.title) == ["from another process"] { return true }
            return false
        }

        let status = try await Self.batch(
            "login.username alice.liddell\nlogin.password wonderland\nlogin.submit\nwait 120s\nnotes.add \"from another process\"\n",
            on: path, scriptAt: folder + "/add.script")
        #expect(status == 0)

        let timeout = Task {
            try? await Task.sleep(for: .seconds(10))
            arrived.cancel()
        }
        #expect(await arrived.value, "the note written by the other process never reached changes()")
        timeout.cancel()
        // It came by itself, as the rows that changed: the list was not loaded again.
        let seen = notesActions.withLock { $0 }
        #expect(seen.contains(.externalChangesNoticed))
        #expect(!seen.contains(.listRequested))
        #expect(
            seen.contains { if case .changesResponse(_, .success(let changes)) = $0 { changes.changed.map(\.text) == ["from another process"] } else { false } }
        )
        watching.cancel()
        try await host.close()
    }
}
