import AppEnvironment
import AppHost
import Console
import Foundation
import StateStoreTesting
import Testing

/// Lines no user should be able to crash, stall or trick the console with.
@Suite("Hostile input")
struct HostileInputTests {
    @Test func hugeNonFiniteAndNegativeNumbersAreRefusedClearly() async throws {
        let console = try await ConsoleSession.scripted(history: HistoryLimits(entries: 2))
        for _ in 0..<4 { _ = await console.execute("counter.increment") }
        let refused = [
            "advance 1e16s": "longer than the longest duration, 1 day",
            "wait 1e16s": "longer than the longest duration, 1 day",
            "advance 86401s": "longer than the longest duration",
            "advance infs": "is not a duration",
            "advance nans": "is not a duration",
            "advance -1s": "is not a duration",
            "fail notes.create 9223372036854775807": "is not a number from 1 to 1000000",
            "fail notes.create 0": "is not a number from 1 to 1000000",
            "jump -9223372036854775808": "no entry -9223372036854775808",
            "jump 9223372036854775807": "no entry 9223372036854775807",
            "diff -9223372036854775808": "no action -9223372036854775808",
        ]
        for (line, message) in refused {
            let result = await console.execute(line)
            #expect(!result.succeeded, "\(line) was accepted")
            let text: String =
                switch result.status {
                case .ok: ""
                case .rejected(let text), .failed(let text), .error(let text): text
                }
            #expect(text.contains(message), "\(line): \(text)")
        }
        #expect(await console.execute("advance 86400s").succeeded)
        #expect(await console.execute("fail notes.create 1000000").succeeded)
    }

    @Test func aLongLineIsRefusedAtOnceAndALongWordGetsNoSuggestions() async throws {
        let console = try await ConsoleSession.scripted()
        let tooLong = await console.execute("notes.add " + String(repeating: "x", count: ParsedLine.maximumLength))
        #expect(tooLong.status == .error("the line is 65546 bytes long; a line may have at most 65536"))
        let clock = ContinuousClock()
        let started = clock.now
        let unknown = await console.execute(String(repeating: "y", count: 60_000))
        // Refused in about 30 ms in a debug build, where the edit distances to every command
        // take about 4 s: a looser bound would not tell the two apart.
        #expect(clock.now - started < .seconds(1), "no edit distance over a 60,000-character word")
        guard case .error(let message) = unknown.status else {
            Issue.record("an unknown command was accepted")
            return
        }
        #expect(!message.contains("did you mean"))
    }

    @Test func aPasswordIsNeverShownInABatchTranscriptOrItsJSON() async {
        let script = """
            signup alice.liddell wonderland
            login.username alice.liddell
            login.password wonderland
            login.password wonder land
            ! signup bob.builder
            login.submit
            """
        let report = await ScriptRunner { try await ConsoleSession.scripted() }.run(script, name: "secrets.script")
        let shown = report.transcript() + report.jsonLines()
        #expect(!shown.contains("wonder"), "\(shown)")
        #expect(report.lines.map(\.command).first == "signup alice.liddell <redacted>")
        #expect(report.lines.map(\.command)[3] == "login.password <redacted> <redacted>")
    }

    @Test func aScriptsLastLineNeedsNoLineFeedAndTextBeyondASCIIKeepsItsLines() async {
        let script = "# crème brûlée 🍮\nlogin.username \"zoë 🍮\"\n\nexpect login.username == \"zoë 🍮\"\ncounter.increment\nexpect counter.count == 1"
        let runner = ScriptRunner { try await ConsoleSession.scripted() }
        for report in [await runner.run(script, name: "text.script"), await runner.run(Array(script.utf8), name: "text.script")] {
            #expect(report.passed, "\(report.transcript())")
            #expect(report.lines.map(\.line) == [2, 4, 5, 6])
            #expect(report.lines.last?.command == "expect counter.count == 1")
        }
        #expect(await runner.run("", name: "empty.script").lines.isEmpty)
    }

    @Test func aScriptWithWindowsLineEndingsRunsLineByLineFromTextAndFromBytes() async {
        let script = "counter.increment\r\ncounter.increment\r\n\r\nexpect counter.count == 2\r\n"
        let runner = ScriptRunner { try await ConsoleSession.scripted() }
        for report in [await runner.run(script, name: "crlf.script"), await runner.run(Array(script.utf8), name: "crlf.script")] {
            #expect(report.passed, "\(report.transcript())")
            #expect(report.lines.map(\.command) == ["counter.increment", "counter.increment", "expect counter.count == 2"])
            #expect(report.lines.map(\.line) == [1, 2, 4])
        }
    }

    @Test func recordRefusesToOverwriteAFileUnlessForced() async throws {
        let path = NSTemporaryDirectory() + "appcore-record-\(UUID().uuidString).script"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try "keep me\n".write(toFile: path, atomically: true, encoding: .utf8)
        let console = try await ConsoleSession.scripted()
        let refused = await console.execute("record \(path)")
        #expect(refused.status == .error("“\(path)” exists; record --force \(path) replaces it"))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "keep me\n")
        #expect(await console.execute("record \(path) --force").succeeded)
        _ = await console.execute("counter.increment")
        _ = await console.execute("stop")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "counter.increment\n")
    }

    @Test func armingAMillionFailuresCostsNoMemory() {
        let failures = FailureInjector()
        failures.failNext(.notesCreate, count: Int.max)
        failures.failNext(.notesCreate, count: 2)
        #expect(failures.pendingFailures(of: .notesCreate) == Int.max)
        #expect(throws: (any Error).self) { try failures.check(.notesCreate) }
    }
}

@Suite("History")
struct HistoryTests {
    @Test func historyIsOneReadableLinePerActionAndFullOnAsk() async throws {
        let console = try await ConsoleSession.scripted()
        for line in [
            "signup alice.liddell wonderland", "login.username alice.liddell", "login.password wonderland",
            "login.submit", "notes.add \"a note with\nno newline\"",
        ] {
            _ = await console.execute(line)
        }
        _ = await console.execute("notes.add \"" + String(repeating: "long ", count: 20) + "\"")
        let compact = await console.execute("history").output
        #expect(compact.contains("session.signUpTapped alice.liddell <redacted>"))
        #expect(compact.contains("login.authenticationResponse success alice.liddell"))
        #expect(compact.contains("notes.inserted 0004 \"long long long long long long long long…\""), "\(compact)")
        #expect(!compact.contains("wonderland"))
        #expect(compact.split(separator: "\n").allSatisfy { $0.count < 120 })
        let full = await console.execute("history --full").output
        #expect(full.contains(".session(.signUpTapped(Credentials(username: \"alice.liddell\", password: <redacted>)))"))
        #expect(!full.contains("rawValue") && !full.contains("timeIntervalSinceReferenceDate"), "ids as text, dates in ISO 8601: \(full)")
        #expect(full.contains("createdAt: 2027-01-15T08:00:00Z"), "\(full)")
        #expect(!full.contains("wonderland"))
        #expect(
            await console.execute("history --all").status
                == .error("argument 1 at column 9: unknown option “--all” (only --full, which shows each action whole)"))
    }
}
