import Console
import Foundation
import Persistence
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the command line asked for.
struct BatchOptions {
    var json = false
    var wait = true
    var quiet = false
    var live = false
    var database: String?
    var jobs = 1
    var loginStyle = ConsoleLoginStyle.finiteStates
    var replayJournal = false
    var history = HistoryLimits()
    var scripts: [String] = []
}

/// The batch runner: reads scripts, runs each in a fresh session, prints, and picks the exit code.
struct Batch {
    let options: BatchOptions

    func run() async throws -> Int32 {
        if options.replayJournal { return try replay() }
        guard !options.scripts.isEmpty else {
            FileHandle.standardError.write(Data("appcore-batch: no script given (try --help)\n".utf8))
            return 2
        }
        let database = try openDatabase()
        let scripts = try options.scripts.map { path -> (String, String) in
            guard let data = FileManager.default.contents(atPath: path) else {
                throw BatchError("cannot read the script \(path)")
            }
            return (path, String(decoding: data, as: UTF8.self))
        }
        let options = options
        let runner = ScriptRunner {
            let environment: ConsoleEnvironment = if let database {
                ConsoleEnvironment(name: "live", base: .live(database: database), manualClock: nil)
            } else {
                .memory()
            }
            return ConsoleSession(environment: environment, loginStyle: options.loginStyle, waitsForEffects: options.wait, historyLimits: options.history)
        }
        let progress = Progress(total: scripts.count, enabled: scripts.count > 1 && isatty(2) == 1)
        let reports = await withTaskGroup(of: (Int, ScriptRunner.Report).self) { group in
            var next = 0
            var reports = [ScriptRunner.Report?](repeating: nil, count: scripts.count)
            func start() {
                let index = next
                let (name, text) = scripts[index]
                group.addTask { (index, await runner.run(text, name: name)) }
                next += 1
            }
            while next < min(options.jobs, scripts.count) { start() }
            for await (index, report) in group {
                reports[index] = report
                progress.advance()
                if next < scripts.count { start() }
            }
            return reports.compactMap { $0 }
        }
        progress.finish()
        var output = ""
        for report in reports {
            if options.json {
                output += report.jsonLines()
            } else if !options.quiet || !report.passed {
                if reports.count > 1 { output += "== \(report.name)\n" }
                output += report.transcript(quiet: options.quiet)
            }
        }
        let failed = reports.filter { !$0.passed }.count
        output += "\(reports.count - failed) passed, \(failed) failed\n"
        FileHandle.standardOutput.write(Data(output.utf8))
        return failed == 0 ? 0 : 1
    }

    private func openDatabase() throws -> Database? {
        guard options.live else { return nil }
        guard let path = options.database else { throw BatchError("--env live needs --db PATH") }
        return try Database(path: path, migrations: AppSchema.migrations)
    }

    private func replay() throws -> Int32 {
        guard let path = options.database else { throw BatchError("--replay-journal needs --db PATH") }
        let database = try Database(path: path, migrations: AppSchema.migrations)
        let journal = try Journal<AppState, AppAction>(database: database)
        let session = ConsoleSession(environment: ConsoleEnvironment(name: "live", base: .live(database: database), manualClock: nil))
        let (state, replayed) = try journal.restore(from: AppState(loginStyle: options.loginStyle), using: App(environment: session.environment.app))
        let restored = ConsoleSession(environment: session.environment, initialState: state)
        print("replayed \(replayed) actions from \(path)")
        print(restored.render(screen: "all"))
        return 0
    }
}

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
