import Foundation
import Testing

/// An answer means durable: a shell killed with SIGKILL at any moment of a stream of increments
/// restarts with at least every increment it answered, whichever shell it was.
@Suite("Answers are durable")
struct DurableAnswerTests {
    /// A shell, the arguments that run it on a database, the line that increments, and how to
    /// read the count from what it printed (the last count answered in full lines).
    struct Shell: Sendable, CustomTestStringConvertible {
        let name: String
        let arguments: @Sendable (String) -> [String]
        /// What runs before each process's stream.
        var signIn: [String] = []
        let increment: String
        let lastCount: @Sendable (String) -> Int?
        var testDescription: String { name }

        static let serve = Shell(name: "appcore-serve", arguments: { ["--db", $0] }, increment: #"{"increment":{}}"#) { text in
            completeLines(text).compactMap { line -> Int? in
                let reply = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                return ((reply?["screens"] as? [String: Any])?["counter"] as? [String: Any])?["count"] as? Int
            }.last
        }
        /// The batch runner journals nothing (each script starts from a fresh app): what it
        /// keeps is notes, so its stream adds notes, and its count is the notes listed.
        static let batch = Shell(
            name: "appcore-batch", arguments: { ["--json", "--env", "live", "--db", $0, "-"] },
            // `wait`: a sign in on a loaded machine can outlast the 5 s a line waits for its effects,
            // and a note refused then never prints the count this test reads for.
            signIn: ["signup alice.liddell wonderland", "login.username alice.liddell", "login.password wonderland", "login.submit", "wait 120s"],
            increment: "notes.add milk"
        ) {
            completeLines($0).compactMap { count(in: $0, after: "\"output\":\"notes: ") }.last
        }
        static let repl = Shell(name: "appcore-repl", arguments: { ["--db", $0] }, increment: "counter.increment") {
            completeLines($0).compactMap { count(in: $0, after: "counter: ") }.last
        }

        /// The lines that ended with a line feed.
        static func completeLines(_ text: String) -> [Substring] {
            text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        }

        /// The number right after `prefix` in `line`.
        static func count(in line: Substring, after prefix: String) -> Int? {
            guard let range = line.range(of: prefix) else { return nil }
            return Int(line[range.upperBound...].prefix { $0.isNumber })
        }
    }

    @Test(arguments: [Shell.serve, Shell.batch, Shell.repl])
    func aKilledShellKeepsEveryIncrementItAnswered(shell: Shell) async throws {
        let stream = 400
        for round in 1...3 {
            let (folder, path) = try SignalTests.databaseFolder("appcore-durable")
            let running = try SignalTests.Driven(shell.name, shell.arguments(path), folder: folder.path)
            running.send(shell.signIn + Array(repeating: shell.increment, count: stream))
            // Killed at a random answer of the stream, while later lines are still being run.
            let killAt = Int.random(in: 1...(stream / 2))
            let printed = try await running.read { (shell.lastCount($0) ?? 0) >= killAt }
            let answered = try #require(shell.lastCount(printed), "round \(round): \(printed)")
            _ = try await running.end(with: SIGKILL)

            let check = try SignalTests.Driven(shell.name, shell.arguments(path), folder: folder.path)
            check.send(shell.signIn.dropFirst() + [shell.increment])
            let restored = try #require(shell.lastCount(try await check.read { shell.lastCount($0) != nil })) - 1
            #expect(restored >= answered, "round \(round): answered \(answered), restored \(restored)")
            _ = try await check.end(with: SIGTERM)
        }
    }
}
