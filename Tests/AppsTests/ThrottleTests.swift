import Foundation
import TestSupport
import Testing

/// Others' wrong guesses for a username slow its sign ins down, across processes, but never
/// lock its owner out: a throttled sign in is answered at once with how long to wait, and after
/// that wait it goes through.
@Suite("Sign-in throttling across processes")
struct ThrottleTests {
    @Test func sixGuessingProcessesNeverLockTheOwnerOut() async throws {
        let (folder, path) = try SignalTests.databaseFolder("appcore-throttle")
        let user = "alice.liddell"
        let created = try await SharedFileTests.serve(path, lines: [#"{"signUp":{"username":"\#(user)","password":"wonderland"}}"#], folder: folder.path)
        #expect(created.status == 0)
        let guess = [#"{"typePassword":{"password":"not-the-one"}}"#, #"{"signIn":{}}"#]
        let guesses = [#"{"typeUsername":{"username":"\#(user)"}}"#] + guess + guess
        let guessers = try await withThrowingTaskGroup(of: SharedFileTests.Run.self) { group in
            for _ in 0..<6 { group.addTask { try await SharedFileTests.serve(path, lines: guesses, folder: folder.path) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        var (wrong, throttled) = (0, 0)
        for run in guessers {
            #expect(run.status == 0, "\(run.errors)")
            wrong += run.output.components(separatedBy: "The username or password is incorrect").count - 1
            throttled += run.output.components(separatedBy: "Too many sign ins failed for this username").count - 1
        }
        #expect(wrong + throttled >= 12, "every guess was answered, as checked or as throttled")
        #expect(throttled > 0, "twelve guesses at once were not all checked")

        // The owner is answered at once: signed in, or told how long to wait.
        let owner = try ConflictTests.Serve(path, folder: folder.path)
        let clock = ContinuousClock()
        // (The form may show an error: a new process resumes the latest journal, a guesser's.)
        let signIn = [
            #"{"dismissError":{}}"#, #"{"typeUsername":{"username":"\#(user)"}}"#, #"{"typePassword":{"password":"wonderland"}}"#, #"{"signIn":{}}"#,
        ]
        var started = clock.now
        var attempt = try await owner.perform(signIn)[3]
        #expect(started.duration(to: clock.now) < .seconds(20), "a sign in waited instead of being answered")
        for _ in 0..<3 {
            let outcome = ConflictTests.status(attempt)
            if outcome.completed { break }
            let reason = try #require(outcome.reason)
            let seconds = try #require(Int(reason.split(separator: "Wait ").last?.split(separator: " ").first ?? ""), "\(reason)")
            #expect(seconds <= 60)
            // The throttle's wait is the behaviour under test: it is waited out for real.
            try await Task.sleep(for: .seconds(seconds))
            started = clock.now
            attempt = try await owner.perform(signIn)[3]
            #expect(started.duration(to: clock.now) < .seconds(20), "a sign in waited instead of being answered")
        }
        #expect(ConflictTests.status(attempt).completed, "after the wait it said, the owner signs in: \(attempt)")
        _ = try await owner.driven.end(with: SIGTERM)
    }
}
