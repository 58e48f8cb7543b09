import Foundation
import TestSupport
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

/// The built `appcore-batch`, driven as a subprocess: golden transcripts of the scenario scripts
/// in `Tests/Fixtures/scripts`, exit codes, and `--json`.
///
/// Re-record the goldens deliberately with `APPCORE_RECORD_GOLDEN=1 swift test --filter AppsTests`.
@Suite("appcore-batch")
struct BatchTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")
    static let scripts =
        (try? FileManager.default.contentsOfDirectory(atPath: fixtures.appendingPathComponent("scripts").path))?
        .filter { $0.hasSuffix(".script") }.sorted() ?? []
    static let recording = ProcessInfo.processInfo.environment["APPCORE_RECORD_GOLDEN"] == "1"

    struct Run {
        let status: Int32
        var output: String
        let errors: String
    }

    /// `output` with run times replaced by `<time>`: they differ from run to run.
    static func timeless(_ output: String) -> String {
        output.replacingOccurrences(of: #" in [0-9]+\.[0-9]{2} s"#, with: " in <time> s", options: .regularExpression)
    }

    /// Runs `appcore-batch` with `arguments`; `onOneCore` runs it on one core (with `taskset`,
    /// where the machine has it), as on the smallest machine it may meet.
    static func batch(_ arguments: [String], onOneCore: Bool = false) async throws -> Run {
        try await onOwnThread { try batchBlocking(arguments, onOneCore: onOneCore) }
    }

    /// `batch` on the calling thread, blocking it (a thread of the tasks' shared pool must not).
    private static func batchBlocking(_ arguments: [String], onOneCore: Bool) throws -> Run {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let batch = URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent("appcore-batch")
        let process = Process()
        if onOneCore, FileManager.default.isExecutableFile(atPath: "/usr/bin/taskset") {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/taskset")
            process.arguments = ["-c", "0", batch.path] + arguments
        } else {
            process.executableURL = batch
            process.arguments = arguments
        }
        process.currentDirectoryURL = fixtures
        let output = ChildProcesses.pipe(), errors = ChildProcesses.pipe()
        process.standardOutput = output
        process.standardError = errors
        try ChildProcesses.start(process)
        let outData = output.fileHandleForReading.readDataToEndOfFile()
        let errData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, output: String(decoding: outData, as: UTF8.self), errors: String(decoding: errData, as: UTF8.self))
    }

    @Test(arguments: scripts)
    func transcriptMatchesItsGolden(script: String) async throws {
        var run = try await Self.batch(["scripts/\(script)"])
        run.output = Self.timeless(run.output)
        #expect(run.status == 0, "\(script) failed:\n\(run.output)")
        let golden = Self.fixtures.appendingPathComponent("golden").appendingPathComponent(script.replacingOccurrences(of: ".script", with: ".transcript"))
        if Self.recording {
            try FileManager.default.createDirectory(at: golden.deletingLastPathComponent(), withIntermediateDirectories: true)
            try run.output.write(to: golden, atomically: true, encoding: .utf8)
        }
        let expected = try String(contentsOf: golden, encoding: .utf8)
        #expect(run.output == expected, "the transcript of \(script) changed; re-record with APPCORE_RECORD_GOLDEN=1 if that is intended")
    }

    @Test func exploreSummarisesAndExitsZeroWhenEveryInvariantHolds() async throws {
        let run = try await Self.batch(["--explore", "--depth", "4"])
        #expect(run.status == 0, "\(run.output)\(run.errors)")
        #expect(run.output.hasPrefix("explored "))
        #expect(run.output.contains("transitions to depth 4 in "))

        let json = try await Self.batch(["--explore", "--depth", "3", "--login-style", "middleware", "--json"])
        #expect(json.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        let explored = try #require(object["explored"] as? [String: Any])
        #expect((explored["states"] as? Int ?? 0) > 10)
        #expect(explored["depth"] as? Int == 3)
        #expect((explored["depthReached"] as? Int ?? 0) >= 1)
        #expect(explored["seconds"] is Double)
        #expect(object["violation"] == nil)

        #expect(try await Self.batch(["--depth", "3"]).status == 2, "--depth alone is a usage error")
        #expect(try await Self.batch(["--explore", "--depth", "99"]).status == 2)
    }

    @Test func anExplorationsCounterexampleScriptReproducesItsStateInTheBatch() async throws {
        // The script AppExplorerTests expects for "no note is ever left unsaved", run as a user would.
        let path = NSTemporaryDirectory() + "appcore-counterexample-\(UUID().uuidString).script"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let script = [
            "signup explorer correct-horse", "login.username explorer", "login.password correct-horse", "login.submit",
            "fail notes.create", "! notes.add milk", "notes.edit @1 \"oat milk\"", "expect notes.count == 1", "view notes",
        ]
        try script.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        let run = try await Self.batch([path])
        #expect(run.status == 0, "\(run.output)\(run.errors)")
        #expect(run.output.contains("oat milk"))
    }

    @Test func aDatabaseThatCannotBeOpenedIsOneLineAndExitTwo() async throws {
        let run = try await Self.batch(["--env", "live", "--db", "/nonexistent-\(UUID().uuidString)/app.sqlite", "scripts/notes.script"])
        #expect(run.status == 2)
        #expect(run.errors.hasPrefix("appcore-batch: open ") && run.errors.split(separator: "\n").count == 1, "\(run.errors)")
    }

    @Test func typosNeverShowThePasswordInTheTranscriptOrJSON() async throws {
        let path = NSTemporaryDirectory() + "appcore-typos-\(UUID().uuidString).script"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try ["login.pasword hunter22secret", "sigup alice hunter22secret", "login.password=hunter22secret", "signup \"alice hunter22secret"]
            .joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        for arguments in [[path], ["--json", path]] {
            let run = try await Self.batch(arguments)
            #expect(run.status == 1)
            #expect(!run.output.contains("hunter22") && !run.errors.contains("hunter22"), "\(run.output)")
            #expect(run.output.contains("login.pasword"), "the command's name still shows: \(run.output)")
        }
    }

    @Test func theThreeLoginStylesGiveIdenticalTranscripts() async throws {
        var transcripts: [Run] = []
        for style in ["fsm", "adhoc", "middleware"] {
            transcripts.append(try await Self.batch(["--login-style", style, "scripts/login-styles.script"]))
        }
        #expect(transcripts.allSatisfy { $0.status == 0 })
        let outputs = transcripts.map { Self.timeless($0.output) }
        #expect(outputs[0] == outputs[1] && outputs[1] == outputs[2])
    }

    @Test func aFailedExpectationNamesFileLineAndValuesAndExitsOne() async throws {
        let path = NSTemporaryDirectory() + "appcore-failing-\(UUID().uuidString).script"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try "counter.increment\nexpect counter.count == 5\n".write(toFile: path, atomically: true, encoding: .utf8)
        let run = try await Self.batch(["--quiet", path])
        #expect(run.status == 1)
        #expect(run.output.contains("FAILED at \(path):2: expect counter.count == 5"))
        #expect(run.output.contains("expected counter.count == 5, but it is 1"))
        #expect(Self.timeless(run.output).hasSuffix("0 passed, 1 failed in <time> s\n"))
    }

    @Test func jsonLinesDescribeEveryCommand() async throws {
        let run = try await Self.batch(["--json", "scripts/time-travel.script", "scripts/sign-in.script"])
        #expect(run.status == 0)
        // Every line of standard output is a JSON object: the commands, then the summary.
        let all = try run.output.split(separator: "\n").map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        let objects = all.dropLast()
        #expect(objects.count > 10)
        #expect(
            objects.allSatisfy {
                $0["script"] is String && $0["line"] is Int && $0["command"] is String && $0["ok"] is Bool && $0["output"] is String && $0["changes"] is [Any]
            })
        #expect(objects.first?["command"] as? String == "counter.increment")
        #expect(objects.first?["script"] as? String == "scripts/time-travel.script")
        #expect((objects.first?["changes"] as? [String]) == ["counter"])
        let summary = try #require(all.last?["summary"] as? [String: Any])
        #expect(summary["passed"] as? Int == 2 && summary["failed"] as? Int == 0 && summary["notRun"] as? Int == 0)
        #expect(summary["seconds"] is Double)
        let scripts = try #require(summary["scripts"] as? [[String: Any]])
        #expect(scripts.compactMap { $0["script"] as? String }.sorted() == ["scripts/sign-in.script", "scripts/time-travel.script"])
        #expect(scripts.allSatisfy { $0["passed"] as? Bool == true && $0["seconds"] is Double })
    }

    @Test func aScriptOnStandardInputIsAnsweredLineByLine() async throws {
        let folder = TemporaryFolder("appcore-batch-stdin")
        try FileManager.default.createDirectory(atPath: folder.path, withIntermediateDirectories: true)
        // Read on threads of their own (Driven): each read waits for the child.
        let batch = try SignalTests.Driven("appcore-batch", ["--json", "-"], folder: folder.path)
        /// The `count`th line of output as JSON, read while standard input is still open.
        func line(_ count: Int) async throws -> [String: Any] {
            let read = try await batch.read { $0.split(separator: "\n").count >= count }
            let lines = read.split(separator: "\n")
            try #require(lines.count >= count, "appcore-batch ended before answering: \(read)")
            return try #require(try JSONSerialization.jsonObject(with: Data(lines[count - 1].utf8)) as? [String: Any])
        }
        batch.send(["counter.increment"])
        let first = try await line(1)
        #expect(first["command"] as? String == "counter.increment" && first["ok"] as? Bool == true)
        batch.send(["# a comment", "expect counter.count == 1"])
        let second = try await line(2)
        #expect(second["line"] as? Int == 3 && second["output"] as? String == "ok: counter.count is 1")
        try batch.input.fileHandleForWriting.close()
        let summary = try await line(3)
        let counts = try #require(summary["summary"] as? [String: Any])
        #expect(counts["passed"] as? Int == 1 && counts["failed"] as? Int == 0)
        try await onOwnThread { [batch] in batch.process.waitUntilExit() }
        #expect(batch.process.terminationStatus == 0)
    }

    @Test func aLineThatIsNotUTF8IsRefusedNotRepaired() async throws {
        let path = NSTemporaryDirectory() + "appcore-bytes-\(UUID().uuidString).script"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data("counter.increment\nnotes.add caf".utf8 + [0xE9] + Data(" au lait\ncounter.increment\n".utf8)).write(to: URL(fileURLWithPath: path))
        let run = try await Self.batch([path])
        #expect(run.status == 1)
        #expect(run.output.contains("FAILED at \(path):2"))
        #expect(run.output.contains("the line is not UTF-8 (byte 0xE9 at byte 14); it was not run"))
        #expect(run.output.contains("counter: 2"), "the lines around it still run")
        #expect(!run.output.contains("\u{FFFD}"))
    }

    @Test func shardsCoverEveryScriptExactlyOnceWhateverTheArgumentOrder() async throws {
        let all = Self.scripts.map { "scripts/\($0)" }
        var seen: [String] = []
        for (index, order) in [all, all.reversed(), all.shuffled()].enumerated() {
            var parts: [[String]] = []
            for shard in 1...3 {
                parts.append(try await Self.batch(["--shard", "\(shard)/3", "--list"] + order).output.split(separator: "\n").map(String.init))
            }
            #expect(parts.flatMap { $0 }.sorted() == all.sorted(), "order \(index)")
            #expect(parts.allSatisfy { !$0.isEmpty })
            if seen.isEmpty { seen = parts.flatMap { $0 } } else { #expect(parts.flatMap { $0 } == seen, "the same split whatever the order") }
        }
        let second = try await Self.batch(["--shard", "2/3", "--list"] + all).output.split(separator: "\n")
        let run = try await Self.batch(["--shard", "2/3", "--quiet"] + all)
        #expect(run.status == 0)
        #expect(Self.timeless(run.output) == "\(second.count) passed, 0 failed in <time> s\n", "only its shard ran")
        #expect(try await Self.batch(["--shard", "4/3", "--list"] + all).status == 2)
    }

    @Test func aJUnitReportNamesEachScriptAndEachFailure() async throws {
        let folder = NSTemporaryDirectory() + "appcore-junit-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder + "/suite", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try "counter.increment\nexpect counter.count == 5\n".write(toFile: folder + "/suite/failing.script", atomically: true, encoding: .utf8)
        let report = folder + "/report.xml"
        let run = try await Self.batch(["--junit", report, "scripts/time-travel.script", folder + "/suite/failing.script"])
        #expect(run.status == 1)
        let cases = try JUnitCases(contentsOf: URL(fileURLWithPath: report))
        #expect(cases.suites == 1 && cases.tests == 2 && cases.failures == 1)
        #expect(cases.cases.map(\.name) == ["time-travel.script", "failing.script"])
        #expect(cases.cases[0].classname == "scripts" && cases.cases[0].failure == nil && cases.cases[0].time != nil)
        #expect(cases.cases[1].classname.hasSuffix("suite"))
        #expect(cases.cases[1].failure?.message == "expected counter.count == 5, but it is 1")
        #expect(cases.cases[1].failure?.text.contains("failing.script:2: expect counter.count == 5") == true)
    }

    @Test func failFastStopsAtTheFirstFailedLineAndStartsNoOtherScript() async throws {
        let path = NSTemporaryDirectory() + "appcore-failfast-\(UUID().uuidString).script"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try "counter.increment\nexpect counter.count == 5\ncounter.increment\n".write(toFile: path, atomically: true, encoding: .utf8)
        let run = try await Self.batch(["--fail-fast", path, "scripts/time-travel.script", "scripts/notes.script"])
        #expect(run.status == 1)
        #expect(!run.output.contains("counter: 2"), "the line after the failure did not run")
        #expect(!run.output.contains("time-travel.script"))
        #expect(Self.timeless(run.output).hasSuffix("0 passed, 1 failed, 2 not run in <time> s\n"))
    }

    @Test func aScriptThatRunsTooLongFailsAtItsTimeout() async throws {
        let path = NSTemporaryDirectory() + "appcore-timeout-\(UUID().uuidString).script"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try String(repeating: "counter.increment\n", count: 300_000).write(toFile: path, atomically: true, encoding: .utf8)
        // On one core too: there a line that ends at once won every race against the deadline.
        for onOneCore in [false, true] {
            let run = try await Self.batch(["--timeout", "300ms", "--quiet", path], onOneCore: onOneCore)
            #expect(run.status == 1)
            #expect(run.output.contains("the script timed out after 0.3 seconds"), "on one core: \(onOneCore)")
            // Stopped where the time ran out, long before the last line (which takes seconds to reach).
            let stoppedAt = run.output.firstMatch(of: /FAILED at .*:(\d+): counter\.increment/).flatMap { Int($0.1) }
            #expect(stoppedAt.map { $0 < 300_000 } == true, "\(run.output)")
        }
        #expect(try await Self.batch(["--timeout", "forever", path]).status == 2)
    }

    @Test func badUsageExitsTwoWithAMessage() async throws {
        let unknown = try await Self.batch(["--frobnicate"])
        #expect(unknown.status == 2 && unknown.errors.contains("unknown option --frobnicate"))
        let missing = try await Self.batch(["no/such/file.script"])
        #expect(missing.status == 2 && missing.errors.contains("cannot read the script no/such/file.script"))
        let none = try await Self.batch([])
        #expect(none.status == 2)
        let history = try await Self.batch(["--history-mib", "none", "scripts/notes.script"])
        #expect(history.status == 2 && history.errors.contains("--history-mib needs a positive number"))
    }

    @Test func aHistoryLimitDropsTheOldestEntries() async throws {
        let path = NSTemporaryDirectory() + "appcore-history-\(UUID().uuidString).script"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try (Array(repeating: "counter.increment", count: 30) + ["! jump 2", "jump 21", "expect counter.count == 21"])
            .joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        let run = try await Self.batch(["--history-entries", "10", path])
        #expect(run.status == 0, "\(run.output)")
        #expect(
            run.output.contains(
                "entry 2 is no longer kept: the timeline keeps at most 10 entries and 64 MiB, and drops the oldest (entries 21…30 are available)"))
    }

    @Test func scriptsRunInParallelWithTheSameResults() async throws {
        let sequential = try await Self.batch(["--quiet"] + Self.scripts.map { "scripts/\($0)" })
        let parallel = try await Self.batch(["--quiet", "--jobs", "4"] + Self.scripts.map { "scripts/\($0)" })
        #expect(sequential.status == 0 && parallel.status == 0)
        #expect(Self.timeless(parallel.output) == Self.timeless(sequential.output))
    }
}

/// A JUnit report read back with Foundation's XML parser.
final class JUnitCases: NSObject, XMLParserDelegate {
    struct Case {
        var classname: String
        var name: String
        var time: String?
        var failure: (message: String, text: String)?
    }

    private(set) var suites = 0
    private(set) var tests = 0
    private(set) var failures = 0
    private(set) var cases: [Case] = []
    private var text = ""

    init(contentsOf url: URL) throws {
        super.init()
        let parser = try #require(XMLParser(contentsOf: url))
        parser.delegate = self
        try #require(parser.parse(), "the report is not well-formed XML: \(parser.parserError.map { "\($0)" } ?? "")")
    }

    func parser(_ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
        switch element {
        case "testsuite":
            suites += 1
            tests = Int(attributes["tests"] ?? "") ?? -1
            failures = Int(attributes["failures"] ?? "") ?? -1
        case "testcase":
            cases.append(Case(classname: attributes["classname"] ?? "", name: attributes["name"] ?? "", time: attributes["time"]))
        case "failure":
            cases[cases.count - 1].failure = (attributes["message"] ?? "", "")
            text = ""
        default: break
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        text += string
    }

    func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
        if element == "failure" { cases[cases.count - 1].failure?.text = text }
    }
}
