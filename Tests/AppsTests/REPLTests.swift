import Foundation
import StateStore
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// glibc's `openpty` (in libc since 2.34), which the Glibc module does not export.
@_silgen_name("openpty")
private func openPseudoTerminal(
    _ master: UnsafeMutablePointer<Int32>, _ slave: UnsafeMutablePointer<Int32>,
    _ name: UnsafeMutablePointer<CChar>?, _ settings: UnsafeRawPointer?, _ size: UnsafeRawPointer?
) -> Int32

/// The built `appcore-repl` on a pseudo-terminal, typed at like a person would.
@Suite("appcore-repl")
struct REPLTests {
    /// A child process on a pseudo-terminal: what it prints is collected; keys are written to it.
    final class PTYProcess: @unchecked Sendable {
        let process = Process()
        private let master: Int32
        private let output = ByteLog()
        private var reader: Thread?

        init(arguments: [String], environment: [String: String]) throws {
            var master: Int32 = -1, slave: Int32 = -1
            guard ChildProcesses.making({ openPseudoTerminal(&master, &slave, nil, nil, nil) }) == 0 else { throw CocoaError(.fileReadUnknown) }
            self.master = master
            let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
            process.executableURL = URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent("appcore-repl")
            process.arguments = arguments
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            let handle = FileHandle(fileDescriptor: slave, closeOnDealloc: false)
            process.standardInput = handle
            process.standardOutput = handle
            process.standardError = handle
            try ChildProcesses.start(process)
            close(slave)
            let masterDescriptor = master
            let reader = Thread { [output] in
                var buffer = [UInt8](repeating: 0, count: 4096)
                while true {
                    let count = read(masterDescriptor, &buffer, buffer.count)
                    if count <= 0 { return }
                    output.append(buffer[0..<count])
                }
            }
            reader.start()
            self.reader = reader
        }

        var text: String { output.text }

        func type(_ keys: String) {
            _ = keys.utf8CString.withUnsafeBufferPointer { write(master, $0.baseAddress, $0.count - 1) }
        }

        /// Types `keys` that end the session, then waits up to 5 s for the process to exit.
        func typeAndWaitForExit(_ keys: String) async {
            type(keys)
            for _ in 0..<500 where process.isRunning { try? await Task.sleep(for: .milliseconds(10)) }
        }

        /// Waits until the output contains `needle` (after `after` characters), up to 10 s.
        @discardableResult
        func waitFor(_ needle: String, after offset: Int = 0) async -> Bool {
            let deadline = ContinuousClock.now + .seconds(10)
            while true {
                let all = text
                if all.count > offset, all.dropFirst(offset).contains(needle) { return true }
                // Checked once more after the deadline: a busy machine may wake this task late.
                guard ContinuousClock.now < deadline else { return false }
                try? await Task.sleep(for: .milliseconds(10))
            }
        }

        deinit {
            if process.isRunning { process.terminate() }
            close(master)
        }
    }

    /// Where the REPL keeps its history file: a folder of each test's own, removed after it.
    let dataHome = TemporaryFolder("appcore-repl")
    var environment: [String: String] { ["NO_COLOR": "1", "TERM": "xterm", "XDG_DATA_HOME": dataHome.path] }

    @Test func lineEditingCompletionHistoryAndCtrlKeys() async throws {
        let repl = try PTYProcess(arguments: ["--in-memory"], environment: environment)
        #expect(await repl.waitFor("appcore> "))

        // Tab completes a command; Enter runs it.
        var mark = repl.text.count
        repl.type("counter.inc\t\r")
        #expect(await repl.waitFor("counter: 1", after: mark))

        // Home, End, Backspace and Ctrl-W edit the line before it runs.
        mark = repl.text.count
        repl.type("iew countXX\u{7F}\u{7F}er\u{1B}[Hv\u{1B}[F\r")
        #expect(await repl.waitFor("counter: 1", after: mark), "“view counter” after editing")
        mark = repl.text.count
        repl.type("counter.reset junk junk\u{17}\u{17}\u{7F}\r")
        #expect(await repl.waitFor("counter: 0", after: mark), "Ctrl-W deleted the extra words")

        // Up recalls the history.
        mark = repl.text.count
        repl.type("\u{1B}[A\u{1B}[A\r")
        #expect(await repl.waitFor("counter: 0", after: mark))

        // A bad line is named and the session goes on; Ctrl-C does not end it.
        mark = repl.text.count
        repl.type("counter.incremnt\r")
        #expect(await repl.waitFor("did you mean “counter.increment”", after: mark))
        repl.type("\u{03}")
        #expect(await repl.waitFor("(Ctrl-D quits)", after: mark))
        #expect(repl.process.isRunning)

        // Ctrl-D on an empty line quits cleanly.
        await repl.typeAndWaitForExit("\u{04}")
        #expect(!repl.process.isRunning)
        #expect(repl.process.terminationStatus == 0)
    }

    /// The history file keeps commands for the next session, but never a password.
    @Test func theHistoryFileNeverHoldsAPassword() async throws {
        let folder = NSTemporaryDirectory() + "appcore-history-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let repl = try PTYProcess(arguments: ["--env", "memory"], environment: environment.merging(["XDG_DATA_HOME": folder]) { $1 })
        #expect(await repl.waitFor("appcore> "))
        var mark = repl.text.count
        repl.type("signup alice.liddell \"white rabbit\"\r")
        #expect(await repl.waitFor("created", after: mark))
        mark = repl.text.count
        repl.type("login.pasword \"white rabbit\"\r")
        #expect(await repl.waitFor("did you mean", after: mark))
        mark = repl.text.count
        repl.type("login.password \"white rabbit\"\r")
        #expect(await repl.waitFor("valid", after: mark))
        mark = repl.text.count
        repl.type("counter.increment\r")
        #expect(await repl.waitFor("counter: 1", after: mark))
        await repl.typeAndWaitForExit("\u{04}")
        let history = try String(contentsOfFile: folder + "/appcore/history", encoding: .utf8)
        #expect(history == "counter.increment\n")
        for file in try FileManager.default.contentsOfDirectory(atPath: folder + "/appcore") {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: folder + "/appcore/" + file))
            #expect(bytes.range(of: Data("white rabbit".utf8)) == nil, "the password reached \(file)")
        }
    }

    /// A REPL on piped input neither reads nor rewrites the history; REPLs at two terminals at
    /// once keep each other's lines.
    @Test func onlyTypingAddsToTheHistoryAndTwoREPLsKeepEachOthersLines() async throws {
        let folder = TemporaryFolder("appcore-history-shared")
        let file = folder.path + "/appcore/history"
        try FileManager.default.createDirectory(atPath: folder.path + "/appcore", withIntermediateDirectories: true)
        try "counter.increment\nview counter\nhelp\n".write(toFile: file, atomically: true, encoding: .utf8)
        let piped = try await Self.runPiped(
            ["--db", folder.path + "/app.sqlite"], input: "counter.increment\ncounter.decrement\n", environment: ["XDG_DATA_HOME": folder.path])
        #expect(piped.contains("counter: 1"))
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "counter.increment\nview counter\nhelp\n", "a pipe is not a person typing")

        let terminal = environment.merging(["XDG_DATA_HOME": folder.path]) { $1 }
        let first = try PTYProcess(arguments: ["--env", "memory"], environment: terminal)
        let second = try PTYProcess(arguments: ["--env", "memory"], environment: terminal)
        #expect(await first.waitFor("appcore> "))
        #expect(await second.waitFor("appcore> "))
        first.type("view counter\r")
        #expect(await first.waitFor("counter: 0"))
        second.type("counter.increment\r")
        #expect(await second.waitFor("counter: 1"))
        await second.typeAndWaitForExit("\u{04}")
        await first.typeAndWaitForExit("\u{04}")
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "counter.increment\nview counter\nhelp\ncounter.increment\nview counter\n")
    }

    /// `login.password` alone asks for the password and shows only a dot per character.
    @Test func thePasswordCanBeTypedWithoutEcho() async throws {
        let repl = try PTYProcess(arguments: ["--in-memory"], environment: environment)
        #expect(await repl.waitFor("appcore> "))
        let mark = repl.text.count
        repl.type("login.username alice.liddell\rlogin.password\r")
        #expect(await repl.waitFor("password: ", after: mark))
        repl.type("white rabbit\r")
        #expect(await repl.waitFor("valid, sign in enabled", after: mark))
        #expect(repl.text.contains(String(repeating: "•", count: 12)))
        #expect(!repl.text.contains("white rabbit"), "the password was echoed")
        await repl.typeAndWaitForExit("\u{04}")
        #expect(!repl.process.isRunning)
    }

    /// A sign-in ends after its command came back (the password is hashed meanwhile): the prompt
    /// then says who is signed in at once, not after the next line.
    @Test func thePromptFollowsASignInThatEndsInTheBackground() async throws {
        let folder = TemporaryFolder("appcore-repl-prompt")
        let repl = try PTYProcess(arguments: ["--db", folder.path + "/app.sqlite"], environment: environment)
        #expect(await repl.waitFor("appcore> "))
        var mark = repl.text.count
        repl.type("signup alice.liddell wonderland\r")
        #expect(await repl.waitFor("Sign in with it.", after: mark))
        repl.type("login.username alice.liddell\rlogin.password wonderland\rlogin.submit\r")
        #expect(await repl.waitFor("session: signed in as alice.liddell", after: mark))
        #expect(await repl.waitFor("alice.liddell> ", after: mark), "the prompt did not follow the sign-in")
        mark = repl.text.count
        repl.type("logout\r")
        #expect(await repl.waitFor("appcore> ", after: mark))
        // A line half typed keeps its text when the prompt changes under it.
        repl.type("view cou")
        #expect(await repl.waitFor("appcore> view cou", after: mark))
        repl.type("nter\r")
        #expect(await repl.waitFor("counter: 0", after: mark))
        await repl.typeAndWaitForExit("quit\r")
        #expect(repl.process.terminationStatus == 0)
    }

    @Test func anEffectFinishingWhileTypingDoesNotMangleTheLine() async throws {
        let repl = try PTYProcess(arguments: ["--in-memory"], environment: environment)
        #expect(await repl.waitFor("appcore> "))
        repl.type("signup alice.liddell wonderland\rlogin.username alice.liddell\rlogin.password wonderland\rlogin.submit\r")
        #expect(await repl.waitFor("alice.liddell> "))
        repl.type("notes.add \"milk and honey\"\r")
        #expect(await repl.waitFor("milk and honey"))
        let mark = repl.text.count
        // A typed search waits for typing to pause (300 ms): its result arrives while the next
        // line is typed.
        repl.type("notes.type-search honey\rview cou")
        // The command's own output says the search is running; the result comes later, alone.
        #expect(await repl.waitFor("matching \"honey\" (searching…)", after: mark))
        #expect(await repl.waitFor("matching \"honey\"\r", after: mark))
        let result = try #require(String(repl.text.dropFirst(mark)).range(of: "matching \"honey\"\r", options: .backwards))
        let resultEnd = mark + String(repl.text.dropFirst(mark))[..<result.upperBound].count
        #expect(await repl.waitFor("alice.liddell> view cou", after: resultEnd), "the typed text is redrawn after the result")
        repl.type("nter\r")
        #expect(await repl.waitFor("counter: 0", after: mark))
        await repl.typeAndWaitForExit("quit\r")
        #expect(repl.process.terminationStatus == 0)
    }

    /// Runs the built `appcore-repl` with `arguments` on piped `input`; returns what it printed
    /// (standard output and error together).
    static func runPiped(_ arguments: [String], input text: String, environment: [String: String]? = nil) async throws -> String {
        try await onOwnThread { try runPipedBlocking(arguments, input: text, environment: environment) }
    }

    /// `runPiped` on the calling thread, blocking it (a thread of the tasks' shared pool must not).
    private static func runPipedBlocking(_ arguments: [String], input text: String, environment: [String: String]?) throws -> String {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent("appcore-repl")
        process.arguments = arguments
        if let environment { process.environment = environment }
        let input = ChildProcesses.pipe(), output = ChildProcesses.pipe()
        process.standardInput = input
        process.standardOutput = output
        // Errors that stop the REPL before it reads (a refused database) go to standard error.
        process.standardError = output
        try ChildProcesses.start(process)
        input.fileHandleForWriting.write(Data(text.utf8))
        try input.fileHandleForWriting.close()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return printed
    }

    @Test func pipedInputGivesPlainResults() async throws {
        let text = try await Self.runPiped(["--in-memory"], input: "counter.increment\nnotes.add x\n")
        #expect(text == "counter: 1\nerror: rejected: You are not signed in. Sign in first.\n")
        #expect(!text.contains("\u{1B}"), "no colour or prompt when not on a terminal")
    }

    /// A restart restores the app from the journal. The session cannot survive it (its token is
    /// never written down), so it ends, keeping the username; the password alone signs in again.
    @Test func aReadOnlyDatabaseIsRefusedOrOpenedOnlyToLook() async throws {
        let folder = NSTemporaryDirectory() + "appcore-readonly-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = folder + "/app.sqlite"
        _ = try await Self.runPiped(["--db", path], input: "counter.increment\ncounter.increment\n")
        // Root writes any file whatever its mode, but not an immutable one.
        func protect(_ on: Bool) -> Bool {
            guard getuid() == 0 else { return chmod(path, on ? 0o400 : 0o600) == 0 }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/chattr")
            process.arguments = [on ? "+i" : "-i", path]
            guard (try? ChildProcesses.start(process)) != nil else { return false }
            process.waitUntilExit()
            return process.terminationStatus == 0
        }
        try #require(protect(true), "cannot make the database read-only here")
        defer {
            _ = protect(false)
            try? FileManager.default.removeItem(atPath: folder)
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let refused = try await Self.runPiped(["--db", path], input: "view counter\n")
        #expect(refused.contains("cannot be written") && refused.contains("--read-only"), "\(refused)")
        let looked = try await Self.runPiped(
            ["--db", path, "--read-only"],
            input: "expect counter.count == 2\nsignup alice.liddell wonderland\ncounter.increment\nlogin.username alice.liddell\nexpect counter.count == 2\n")
        #expect(looked.contains("ok: counter.count is 2"), "\(looked)")
        // Everything that would change what is kept says it cannot: the counter and the form too.
        let refusal = "rejected: the database was opened only to look (--read-only), so nothing can be changed"
        #expect(looked.components(separatedBy: refusal).count - 1 == 3, "\(looked)")
        #expect(!looked.contains("counter: 3"), "\(looked)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "the file did not change")
    }

    @Test func aRestartResumesAfterAnUndoOrAJump() async throws {
        let folder = NSTemporaryDirectory() + "appcore-undo-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let arguments = ["--db", folder + "/app.sqlite"]
        let first = try await Self.runPiped(arguments, input: "counter.increment\ncounter.increment\ncounter.increment\nundo\nexpect counter.count == 2\n")
        #expect(!first.contains("error"), "\(first)")
        // A restart's history starts at the restored state: entry 1 is the restore, 2 the first increment.
        let second = try await Self.runPiped(
            arguments, input: "expect counter.count == 2\ncounter.increment\ncounter.increment\njump 2\nexpect counter.count == 3\n")
        #expect(second.contains("ok: counter.count is 2"), "the undo was kept: \(second)")
        #expect(!second.contains("error"), "\(second)")
        let third = try await Self.runPiped(arguments, input: "expect counter.count == 3\n")
        #expect(third.contains("ok: counter.count is 3"), "the jump was kept: \(third)")
    }

    @Test func aRestartRestoresTheAppAndAsksForThePasswordAgain() async throws {
        let folder = NSTemporaryDirectory() + "appcore-restart-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let arguments = ["--db", folder + "/app.sqlite", "--env", "live"]
        let first = try await Self.runPiped(
            arguments,
            input: """
                signup alice.liddell "through the looking glass"
                login.username alice.liddell
                login.password "through the looking glass"
                login.submit
                wait 120s
                notes.add milk
                counter.increment

                """)
        #expect(first.contains("session: signed in as alice.liddell"), "\(first)")
        let second = try await Self.runPiped(
            arguments,
            input: """
                expect session.isSignedIn == false
                expect session.message == "Your session has expired. Sign in again."
                expect login.username == alice.liddell
                expect counter.count == 1
                login.password "through the looking glass"
                login.submit
                wait 120s
                expect notes.count == 1
                view notes

                """)
        #expect(!second.contains("error:"), "\(second)")
        #expect(second.contains("session: signed in as alice.liddell"))
        #expect(second.contains("milk"))
        let files = try FileManager.default.contentsOfDirectory(atPath: folder)
        for file in files {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + file))
            #expect(bytes.range(of: Data("looking glass".utf8)) == nil, "the password reached \(file)")
        }
    }
}

/// Bytes appended from a reader thread, read as text. Guarded by an `NSLock` (a pthread mutex)
/// rather than `Synchronization.Mutex`, whose futex the Thread Sanitizer cannot follow.
final class ByteLog: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()

    func append(_ bytes: ArraySlice<UInt8>) {
        lock.lock()
        defer { lock.unlock() }
        data.append(contentsOf: bytes)
    }

    var text: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: data, as: UTF8.self)
    }
}

extension REPLTests {
    @Test(arguments: [SIGHUP, SIGTERM])
    func aClosedTerminalOrASignalEndsTheREPLAsQuittingDoes(signal: Int32) async throws {
        let folder = TemporaryFolder("appcore-repl-hangup")
        try FileManager.default.createDirectory(atPath: folder.path, withIntermediateDirectories: true)
        let database = folder.path + "/app.sqlite"
        let repl = try PTYProcess(arguments: ["--db", database], environment: ["HOME": folder.path, "XDG_DATA_HOME": folder.path, "NO_COLOR": "1"])
        #expect(await repl.waitFor("appcore> "))
        repl.type("counter.increment\r")
        #expect(await repl.waitFor("counter: 1"))
        repl.type("notes.add x\r")
        #expect(await repl.waitFor("Sign in first"))
        kill(repl.process.processIdentifier, signal)
        for _ in 0..<500 where repl.process.isRunning { try? await Task.sleep(for: .milliseconds(10)) }
        #expect(repl.process.terminationReason == .exit && repl.process.terminationStatus == 128 + signal)
        let history = try String(contentsOfFile: folder.path + "/appcore/history", encoding: .utf8)
        #expect(history == "counter.increment\nnotes.add x\n", "the history was saved")
        #expect(!FileManager.default.fileExists(atPath: database + "-wal"), "the database was closed")
    }
}
