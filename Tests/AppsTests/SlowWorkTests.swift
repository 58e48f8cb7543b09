import Foundation
import TestSupport
import Testing

/// A shell on the live clients waits for its real work when a loaded machine makes it slow,
/// rather than give up after the 5 s a script's line waits for the simulated clients (or the
/// host's 10 s) and go on signed out. Every password hash here takes 11 s longer (the fault
/// shim's `SLOW_PBKDF2_MS`).
@Suite("Slow real work")
struct SlowWorkTests {
    enum Shell: String, CaseIterable {
        case batch = "appcore-batch", repl = "appcore-repl", serve = "appcore-serve"

        func arguments(_ path: String) -> [String] {
            switch self {
            case .batch: ["--env", "live", "--db", path, "-"]
            case .repl, .serve: ["--db", path]
            }
        }

        /// Signs up and in, then adds a note.
        var lines: [String] {
            switch self {
            case .batch, .repl:
                ["signup alice.liddell wonderland", "login.username alice.liddell", "login.password wonderland", "login.submit", "notes.add milk"]
            case .serve:
                [
                    #"{"signUp":{"username":"alice.liddell","password":"wonderland"}}"#, #"{"typeUsername":{"username":"alice.liddell"}}"#,
                    #"{"typePassword":{"password":"wonderland"}}"#, #"{"signIn":{}}"#, #"{"addNote":{"text":"milk"}}"#,
                ]
            }
        }

        /// What it prints when the note was added signed in.
        var added: String {
            self == .serve ? #""count":1"# : "notes: 1 note"
        }
    }

    @Test(arguments: Shell.allCases)
    func aSignInSlowerThanTheUsualWaitIsWaitedFor(shell: Shell) async throws {
        let library = try await StuckDatabaseTests.compiledShim()
        let (folder, path) = try SignalTests.databaseFolder("appcore-slow")
        let running = try SignalTests.Driven(
            shell.rawValue, shell.arguments(path), folder: folder.path, environment: ["LD_PRELOAD": library, "SLOW_PBKDF2_MS": "11000"])
        running.send(shell.lines)
        try running.input.fileHandleForWriting.close()
        let printed = try await running.read { _ in false }
        try await onOwnThread { running.process.waitUntilExit() }
        #expect(running.process.terminationStatus == 0, "\(shell): \(printed)")
        for trouble in ["timed out", "timedOut", "error", "rejected", "in progress"] {
            #expect(!printed.contains(trouble), "\(shell): \(printed)")
        }
        #expect(printed.contains(shell.added), "\(shell): \(printed)")
    }
}
