import Console
import Foundation
import StateStoreTesting
import Testing

@Suite("Console session")
struct ConsoleSessionTests {
    func session() async throws -> ConsoleSession { try await ConsoleSession.scripted() }

    func run(_ session: ConsoleSession, _ lines: [String]) async -> [ConsoleSession.Result] {
        var results: [ConsoleSession.Result] = []
        for line in lines { results.append(await session.execute(line)) }
        return results
    }

    @Test func aSignedInSessionWithNotesAndTheirErrors() async throws {
        let console = try await session()
        let results = await run(
            console,
            [
                "signup alice.liddell wonderland", "login.username alice.liddell", "login.password wonderland", "login.submit",
                "notes.add \"buy milk\"", "fail notes.update", "notes.edit 0003 \"buy oat milk\"",
                "expect notes.count == 1", "notes.retry 0003", "notes.edit nope x", "notes.delete 0003", "expect notes.isEmpty == true",
            ])
        #expect(results.map(\.succeeded) == [true, true, true, true, true, true, false, true, true, false, true, true])
        #expect(results[6].output.contains("NOT SAVED"))
        #expect(results[6].status == .failed("The request failed: simulated failure of notes.update. Check the connection and retry."))
        #expect(results[9].status == .error("argument 1 <id> at column 12: there is no note with id “nope” (view notes lists them)"))
    }

    @Test func rejectionsExpectationsAndSignInFirst() async throws {
        let console = try await session()
        let results = await run(
            console,
            [
                "notes.add x", "! notes.add x", "! counter.increment", "expect counter.count == 1", "expect counter.count > 5",
                "expect login.errorMessage == nil", "expect counter.nope == 1", "expect counter.count ~ 1",
            ])
        #expect(results[0].status == .rejected("rejected: You are not signed in. Sign in first."))
        #expect(results[1].succeeded)
        #expect(results[2].status == .rejected("“counter.increment” was expected to be rejected, but it was accepted"))
        #expect(results[3].succeeded)
        #expect(results[4].status == .rejected("expected counter.count > 5, but it is 1"))
        #expect(results[5].succeeded)
        #expect(results[6].status == .error("argument 1 <path> at column 8: counter has no property “nope” (it has canDecrement, count)"))
        #expect(results[7].status == .error("argument 2 <op> at column 22: unknown operator “~” (==, !=, <, <=, >, >=, contains)"))
    }

    @Test func timeTravelAndTheClock() async throws {
        let console = try await session()
        let results = await run(
            console,
            [
                "counter.increment", "counter.increment", "undo", "expect counter.count == 1", "redo", "jump 0",
                "expect counter.count == 0", "diff 2", "advance 300ms", "advance soon", "jump 99",
            ])
        #expect(results.prefix(9).allSatisfy { $0.succeeded })
        #expect(results[7].output.contains("count"))
        #expect(results[9].status == .error("argument 1 at column 9: “soon” is not a duration (like 300ms, 2s or 1m)"))
        #expect(!results[10].succeeded)
    }

    @Test func diffNamesWhatIsAvailable() async throws {
        let console = try await session()
        let results = await run(console, ["diff", "counter.increment", "counter.increment", "diff", "diff 7", "jump 0", "diff"])
        #expect(results[0].status == .rejected("no action has been reduced yet, so there is nothing to diff"))
        #expect(results[3].output == "2  .counter(.incrementTapped)\n.counter.count\n    -  1\n    +  2")
        #expect(results[4].status == .rejected("no action 7 in history (actions 1…2 are available; history lists them)"))
        #expect(results[6].status == .rejected("no action 0 in history (actions 1…2 are available; history lists them)"))
    }

    @Test func theRecordingNeverHoldsThePassword() async throws {
        let path = NSTemporaryDirectory() + "appcore-record-\(UUID().uuidString).txt"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let console = try await session()
        _ = await run(console, ["record \(path)", "login.username alice.liddell", "login.password \"top secret!\"", "signup bob.builder canwefixit", "stop"])
        let script = try String(contentsOfFile: path, encoding: .utf8)
        #expect(script == "login.username alice.liddell\nlogin.password <redacted>\nsignup bob.builder <redacted>\n")
    }

    /// Thousands of random and mutated lines: no crash, and a line that fails changes nothing.
    @Test func fuzzedLinesNeverCrashAndRejectedOnesChangeNothing() async throws {
        let console = try await session()
        _ = await run(
            console, ["signup alice.liddell wonderland", "login.username alice.liddell", "login.password wonderland", "login.submit", "notes.add seed"])
        var generator = SeededRandom(seed: 42)
        let words =
            CommandSpec.all.map(\.name) + ["\"", "\\", "#", "!", "0003", "-1", "999999999999", "\"a b\"", "💥", "", "nil", "==", "300ms", "notes", "all"]
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz.\" \\#!0123456789💥\t")
        for round in 0..<3_000 {
            var line: String
            if round % 2 == 0 {
                line = (0..<Int(generator.next() % 5)).map { _ in words[Int(generator.next() % UInt64(words.count))] }.joined(separator: " ")
            } else {
                line = String((0..<Int(generator.next() % 30)).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
            }
            // (`! record x` records too: a line that names one of these anywhere is skipped.)
            if ["record", "quit", "wait"].contains(where: line.contains) { continue }
            let before = console.store.currentState
            let result = await console.execute(line)
            if case .error = result.status {
                #expect(console.store.currentState == before, "“\(line)” failed but changed the state")
            }
            if case .rejected = result.status, !line.hasPrefix("expect"), !line.contains("!") {
                #expect(
                    console.store.currentState.counter == before.counter && console.store.currentState.notes.items == before.notes.items,
                    "“\(line)” was rejected but changed the state")
            }
        }
    }
}
