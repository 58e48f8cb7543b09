import Foundation
import TestSupport
import Testing

/// A shell's line on a database waits for its real work when a loaded machine makes it slow,
/// rather than give up after the 5 s a line waits for the simulated clients and run the next
/// lines signed out. Every password hash here takes 6 s longer (the fault shim's
/// `SLOW_PBKDF2_MS`).
@Suite("Slow real work")
struct SlowWorkTests {
    static let lines = [
        "signup alice.liddell wonderland", "login.username alice.liddell", "login.password wonderland", "login.submit",
        "notes.add milk", "expect notes.count == 1",
    ]

    @Test(arguments: [["appcore-batch", "--env", "live", "--db"], ["appcore-repl", "--db"]])
    func aSignInSlowerThanFiveSecondsIsWaitedFor(shell: [String]) async throws {
        let library = try await StuckDatabaseTests.compiledShim()
        let (folder, path) = try SignalTests.databaseFolder("appcore-slow")
        let arguments = Array(shell.dropFirst()) + [path] + (shell[0] == "appcore-batch" ? ["-"] : [])
        let running = try SignalTests.Driven(shell[0], arguments, folder: folder.path, environment: ["LD_PRELOAD": library, "SLOW_PBKDF2_MS": "6000"])
        running.send(Self.lines)
        try running.input.fileHandleForWriting.close()
        let printed = try await running.read { _ in false }
        try await onOwnThread { running.process.waitUntilExit() }
        #expect(running.process.terminationStatus == 0, "\(shell[0]): \(printed)")
        #expect(!printed.contains("timed out") && !printed.contains("error"), "\(shell[0]): \(printed)")
        #expect(printed.contains("signed in as alice.liddell"), "\(shell[0]): \(printed)")
    }
}
