import AppHost
import Console
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the command line asked for.
struct BatchOptions: HistorySettings {
    var json = false
    var wait = true
    var quiet = false
    var live = false
    var databasePath: String?
    var jobs = 1
    var loginStyle: ConsoleLoginStyle?
    var replayJournal = false
    var history = HistoryLimits()
    var scripts: [String] = []
    /// `--shard K/N`: run the K-th of N parts (K from 1).
    var shard: (index: Int, count: Int)?
    /// `--list`: print the scripts that would run, and run none.
    var list = false
    /// `--fail-fast`: stop at the first failed line, and start no script after it.
    var failFast = false
    /// `--timeout`: how long one script may take.
    var timeout: Duration?
    /// `--junit FILE`: where to write a JUnit XML report.
    var junit: String?
    /// `--read-only`: open the database only to look.
    var readOnly = false
    /// `--durability`: what an answer survives.
    var durability = Durability.processCrash
    /// `--explore`: explore the app instead of running scripts, `--depth` intents deep.
    var explore = false
    var exploreDepth: Int?
}

extension BatchOptions {
    /// The scripts this run takes: all of them, or its shard's part. The part is the same on
    /// every machine whatever the order of the arguments: scripts are sorted by path and dealt
    /// out in turn, so N machines together run each exactly once.
    var selectedScripts: [String] {
        guard let shard else { return scripts }
        return Set(scripts).sorted().enumerated().filter { $0.offset % shard.count == shard.index - 1 }.map(\.element)
    }
}

/// The batch runner: reads scripts, runs each in a fresh session, prints, and picks the exit code.
struct Batch {
    let options: BatchOptions
    /// What runs the scripts; ``ScriptRunner/end()`` ends them on a signal.
    let runner: ScriptRunner

    /// Standard input's lines, when it is the script.
    let input: InputLines?

    init(options: BatchOptions) {
        self.options = options
        let readsStandardInput = options.scripts.count == 1 && options.scripts.first.map(Self.standardInputNames.contains) == true
        input = readsStandardInput ? InputLines() : nil
        runner = Self.makeRunner(options, input: input)
    }

    /// The script names that mean standard input, read and answered line by line.
    static let standardInputNames: Set<String> = ["-", "/dev/stdin"]

    func run() async throws -> Int32 {
        if options.replayJournal { return try await replay() }
        guard !options.scripts.isEmpty else {
            FileHandle.standardError.write(Data("appcore-batch: no script given (try --help)\n".utf8))
            return 2
        }
        if options.live, options.databasePath == nil { throw BatchError("--env live needs --db PATH") }
        if let input {
            return await runStandardInput(runner, input: input)
        }
        let selected = options.selectedScripts
        if options.list {
            standardOutput.write(selected.map { $0 + "\n" }.joined())
            return 0
        }
        // Each script is read as it runs, a line at a time (none held past the longest a line
        // may be), not into memory whole: here only whether it can be read is checked.
        let scripts = try selected.map { path -> String in
            if Self.standardInputNames.contains(path) { throw BatchError("standard input (\(path)) can only be the one script given") }
            if let database = self.options.databasePath, DatabaseFiles.contain(path, database: database) {
                throw BatchError("the script \(TerminalText.visible(path)) is the database or one of its files")
            }
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue,
                FileManager.default.isReadableFile(atPath: path)
            else {
                throw BatchError("cannot read the script \(TerminalText.visible(path))")
            }
            return path
        }
        let options = options
        let progress = Progress(total: scripts.count, enabled: scripts.count > 1 && isatty(2) == 1)
        let output = standardOutput
        // Results are written as they come: with --json each line as it ends, otherwise each
        // script's transcript as it ends, so a run that is killed has shown what it did.
        let clock = ContinuousClock()
        let started = clock.now
        let reports = await withTaskGroup(of: (Int, ScriptRunner.Report).self) { group in
            var next = 0
            var stopped = false
            var reports = [ScriptRunner.Report?](repeating: nil, count: scripts.count)
            func start() {
                let index = next
                let name = scripts[index]
                group.addTask {
                    let report = await runner.run(file: name) { line in
                        if options.json { output.write(line.jsonLine(script: name) + "\n") }
                    }
                    return (index, report)
                }
                next += 1
            }
            while next < min(options.jobs, scripts.count) { start() }
            for await (index, report) in group {
                reports[index] = report
                progress.advance()
                if !options.json, !options.quiet || !report.passed {
                    let header = "== \(report.name) (\(report.passed ? "passed" : "FAILED") in \(Self.seconds(report.duration)) s)\n"
                    output.write((scripts.count > 1 ? header : "") + report.transcript(quiet: options.quiet))
                }
                if options.failFast, !report.passed { stopped = true }
                if next < scripts.count, !stopped { start() }
            }
            return reports.compactMap { $0 }
        }
        progress.finish()
        let elapsed = clock.now - started
        output.write(summary(reports, notRun: scripts.count - reports.count, elapsed: elapsed))
        if let path = options.junit {
            do {
                try Data(JUnitReport(reports: reports, elapsed: elapsed).xml.utf8).write(to: URL(fileURLWithPath: path))
            } catch {
                throw BatchError("cannot write the JUnit report \(path): \(error.localizedDescription)")
            }
        }
        return Self.exitStatus(reports)
    }

    /// 0 when every script passed, 1 when one failed, 2 (saying why on standard error) when a
    /// database could not be opened or closed.
    static func exitStatus(_ reports: [ScriptRunner.Report]) -> Int32 {
        let storageFailures = Set(reports.compactMap(\.storageFailure))
        for failure in storageFailures.sorted() { FileHandle.standardError.write(Data("appcore-batch: \(failure)\n".utf8)) }
        if !storageFailures.isEmpty { return 2 }
        return reports.allSatisfy(\.passed) ? 0 : 1
    }

    /// `1.23`: a duration in seconds, to the hundredth.
    static func seconds(_ duration: Duration) -> String {
        String(format: "%.2f", Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
    }

    /// The sessions scripts run in: in memory on a test clock, or on the database's live clients
    /// without its journal (each script starts from a fresh app).
    private static func makeRunner(_ options: BatchOptions, input: InputLines?) -> ScriptRunner {
        var runner = ScriptRunner {
            guard options.live, let path = options.databasePath else {
                return try await ConsoleSession.scripted(
                    loginStyle: options.loginStyle ?? .finiteStates, history: options.history, waitsForEffects: options.wait)
            }
            let hostOptions = AppHost.Options(
                journal: .off, history: options.history, durability: options.durability, readOnly: options.readOnly, injectsFailures: true)
            // Given up when standard input (the script) ends and a stuck database keeps it from opening.
            let host = try await ShellOpening.host(whileReading: input) {
                try await AppHost(storage: .database(path: path), loginStyle: options.loginStyle, options: hostOptions)
            }
            return ConsoleSession(host: host, waitsForEffects: options.wait, defaultTimeout: ConsoleSession.liveTimeout)
        }
        runner.stopsAtFirstFailure = options.failFast
        runner.timeout = options.timeout
        return runner
    }

    /// Runs standard input as one script, answering each line as soon as it has run, so another
    /// process can drive the app line by line; the answers to lines already waiting go out
    /// together, in one write.
    private func runStandardInput(_ runner: ScriptRunner, input: InputLines) async -> Int32 {
        let options = options
        let report = await runner.run(name: "stdin", lines: input) { line in
            if options.json {
                standardOutput.write(line.jsonLine(script: "stdin") + "\n", moreFollows: input.hasLineReady)
            } else if !options.quiet || !line.ok {
                standardOutput.write(line.transcript(script: "stdin"), moreFollows: input.hasLineReady)
            }
        }
        standardOutput.write(summary([report], notRun: 0, elapsed: report.duration))
        return Self.exitStatus([report])
    }

    /// The last line: `2 passed, 0 failed in 0.31 s` (`, 3 not run` after `--fail-fast`), or
    /// with `--json` the object `{"summary":{"failed":0,"notRun":0,"passed":2,"scripts":[{"passed":true,"script":"a.script","seconds":0.12},…],"seconds":0.31}}`.
    private func summary(_ reports: [ScriptRunner.Report], notRun: Int, elapsed: Duration) -> String {
        let failed = reports.filter { !$0.passed }.count
        let passed = reports.count - failed
        guard options.json else {
            return "\(passed) passed, \(failed) failed\(notRun > 0 ? ", \(notRun) not run" : "") in \(Self.seconds(elapsed)) s\n"
        }
        struct Script: Encodable { let script: String; let passed: Bool; let seconds: Double }
        struct Summary: Encodable { let passed: Int; let failed: Int; let notRun: Int; let seconds: Double; let scripts: [Script] }
        struct Line: Encodable { let summary: Summary }
        func seconds(_ duration: Duration) -> Double { (Double(Self.seconds(duration)) ?? 0) }
        let line = Line(
            summary: Summary(
                passed: passed, failed: failed, notRun: notRun, seconds: seconds(elapsed),
                scripts: reports.map { Script(script: $0.name, passed: $0.passed, seconds: seconds($0.duration)) }))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return ((try? encoder.encode(line)).map { String(decoding: $0, as: UTF8.self) } ?? "{}") + "\n"
    }

    private func replay() async throws -> Int32 {
        guard let path = options.databasePath else { throw BatchError("--replay-journal needs --db PATH") }
        let hostOptions = AppHost.Options(journal: .restoreOnly, history: nil, readOnly: options.readOnly)
        let host = try await AppHost(storage: .database(path: path), loginStyle: options.loginStyle, options: hostOptions)
        let session = ConsoleSession(host: host)
        standardOutput.write("replayed \(host.restoredActions) actions from \(path)\n" + session.renderScreens() + "\n")
        try await host.close()
        return 0
    }
}

/// The batch runner's standard output: a line or a transcript written whole, or not at all.
let standardOutput = StandardOutput()

struct BatchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A one-line progress bar on standard error.
final class Progress: @unchecked Sendable {
    private let total: Int
    private let enabled: Bool
    private var done = 0
    private let lock = NSLock()

    init(total: Int, enabled: Bool) {
        self.total = total
        self.enabled = enabled
    }

    func advance() {
        guard enabled else { return }
        lock.lock()
        done += 1
        let width = 30
        let filled = done * width / max(total, 1)
        let bar = String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled)
        FileHandle.standardError.write(Data("\r\(bar) \(done)/\(total)".utf8))
        lock.unlock()
    }

    func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
