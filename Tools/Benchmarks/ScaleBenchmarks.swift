import AppEnvironment
import Console
import Foundation
import Models
import Persistence
import StateStore
import StoreBenchmarks

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The real-data-sizes cases. Each sample runs in a fresh process (this executable, started
// again with `--scale-child`), so its peak memory and its warm-up are its own.

/// How many notes the scale cases work with, and the window measured at each end.
let scaleNotes = 10_000
let scaleWindow = 1_000

// MARK: - Child workloads

/// Runs the workload `arguments` names in this process and prints its numbers; called from
/// `main` when the tool was started with `--scale-child`.
func runScaleChild(_ arguments: [String]) async -> Int32 {
    switch arguments.first {
    case "notes-add":
        let count = arguments.dropFirst().first.flatMap { Int($0) } ?? scaleNotes
        let (first, last) = await notesAddWindows(count)
        print("first \(first)\nlast \(last)")
        if let peak = ownPeakResidentBytes() { print("peak \(peak)") }
        return 0
    case "sign-in":
        guard arguments.count == 3, let count = Int(arguments[2]) else { return 2 }
        do {
            print("milliseconds \(try await signInMilliseconds(databasePath: arguments[1], notes: count))")
            return 0
        } catch {
            StandardStream.error.write("appcore-bench: sign-in child failed: \(error)\n")
            return 1
        }
    default:
        StandardStream.error.write("appcore-bench: unknown scale child \(arguments)\n")
        return 2
    }
}

/// A console session on the in-memory clients, signed in as `bench.writer`.
func signedInMemorySession() async -> ConsoleSession {
    guard let session = try? await ConsoleSession.scripted() else { fatalError("the scale session could not start") }
    for line in ["signup bench.writer benchmark", "login.username bench.writer", "login.password benchmark", "login.submit"] {
        let result = await session.execute(line)
        precondition(result.succeeded, "the scale session could not sign in: \(result.status)")
    }
    return session
}

/// Lines per second of `notes.add`, through the console as a batch script runs them, over the
/// first and the last `scaleWindow` of `count` notes.
func notesAddWindows(_ count: Int) async -> (first: Double, last: Double) {
    let session = await signedInMemorySession()
    let window = min(scaleWindow, count / 2)
    var first = 0.0
    var last = 0.0
    var windowStart = monotonicNanoseconds()
    for number in 1...count {
        if number == count - window + 1 { windowStart = monotonicNanoseconds() }
        let result = await session.execute("notes.add \"note \(number): remember the milk, then call the plumber\"")
        precondition(result.succeeded, "notes.add failed at note \(number): \(result.status)")
        if number == window { first = Double(window) / (Double(monotonicNanoseconds() - windowStart) / 1e9) }
        if number == count { last = Double(window) / (Double(monotonicNanoseconds() - windowStart) / 1e9) }
    }
    let check = await session.execute("expect notes.count == \(count)")
    precondition(check.succeeded, "the notes were not all added: \(check.status)")
    try? await session.host.close(timeout: .zero)
    return (first, last)
}

/// The credentials of the account the sign-in case signs in to.
let scaleCredentials = Credentials(username: "bench.reader", password: "benchmark")

/// A database at `path` with an account holding `count` notes.
func prepareSignInDatabase(at path: String, notes count: Int) async throws {
    let database = try Database(path: path, migrations: AppSchema.migrations)
    // The account's password is hashed as the app hashes it, so signing in costs what it costs.
    let live = AppEnvironment.live(database: database)
    _ = try await live.auth.signUp(scaleCredentials)
    let session = try await live.auth.authenticate(scaleCredentials)
    let start = Date(timeIntervalSince1970: 1_790_000_000)
    for number in 0..<count {
        // One note in a hundred holds "oats", which the mixed stream searches for.
        let oats = number % 100 == 0 ? " and oats" : ""
        let text = "Note \(number)\nremember the milk\(oats), then call the plumber about the \(number % 7 == 0 ? "boiler" : "sink")"
        _ = try await live.notes.create(session.token, Note(id: Note.ID(UUID()), text: text, createdAt: start.addingTimeInterval(Double(number))))
    }
    // Indexed for search, as a database in use for a while is.
    try SearchIndex.indexAll(in: database)
}

/// Milliseconds from `login.submit` until the account's `count` notes are listed, on the
/// database at `path`, through the console as the REPL runs it.
func signInMilliseconds(databasePath path: String, notes count: Int) async throws -> Double {
    let host = try await AppHost(storage: .database(path: path), options: AppHost.Options(journal: .off))
    let session = ConsoleSession(host: host)
    for line in ["login.username \(scaleCredentials.username.rawValue)", "login.password \(scaleCredentials.password.revealed)"] {
        _ = await session.execute(line)
    }
    let start = monotonicNanoseconds()
    let result = await session.execute("login.submit")
    let elapsed = monotonicNanoseconds() - start
    precondition(result.succeeded, "sign-in failed: \(result.status)")
    let check = await session.execute("expect notes.count == \(count)")
    precondition(check.succeeded, "sign-in did not list every note: \(check.status)")
    try await host.close(timeout: .zero)
    return Double(elapsed) / 1e6
}

// MARK: - The parent's side

/// What a child printed, by name, and its peak resident memory in bytes.
struct ChildRun {
    var values: [String: Double]
    var peakResidentBytes: Double
}

/// Runs this executable with `--scale-child` and `arguments` (or `executable` with `arguments`),
/// and waits for it.
func runChild(_ arguments: [String], executable: String? = nil) throws -> ChildRun {
    let argv = executable.map { [$0] + arguments } ?? [CommandLine.arguments[0], "--scale-child"] + arguments
    let executable = argv[0]
    let output = NSTemporaryDirectory() + "appcore-bench-child-" + UUID().uuidString
    defer { try? FileManager.default.removeItem(atPath: output) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    var pid = pid_t()
    let cArguments = argv.map { strdup($0) } + [nil]
    defer { cArguments.forEach { free($0) } }
    let spawned = posix_spawn(&pid, executable, &actions, nil, cArguments, environ)
    guard spawned == 0 else { throw ChildError("could not start \(executable): error \(spawned)") }
    var status: Int32 = 0
    var usage = rusage()
    guard wait4(pid, &status, 0, &usage) == pid else { throw ChildError("lost the child process") }
    guard status == 0 else { throw ChildError("the child \(arguments.joined(separator: " ")) ended with status \(status)") }
    let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    var values: [String: Double] = [:]
    for line in text.split(separator: "\n") {
        let parts = line.split(separator: " ")
        if parts.count == 2, let value = Double(parts[1]) { values[String(parts[0])] = value }
    }
    #if canImport(Darwin)
    let peak = Double(usage.ru_maxrss)
    #else
    let peak = Double(usage.ru_maxrss) * 1024
    #endif
    return ChildRun(values: values, peakResidentBytes: peak)
}

/// Peak resident memory of a fresh process that only dispatches actions, for `memory-dispatch`.
func memoryBenchmarks(_ plan: RunPlan, selected: @Sendable (String) -> Bool) -> [CaseResult] {
    guard selected("memory-dispatch") else { return [] }
    // Built with this tool, next to it.
    let folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    let executable = folder.appendingPathComponent("appcore-bench-dispatch").path
    do {
        let runs = try (0..<min(plan.runs, 5)).map { _ in try runChild([], executable: executable) }
        return [
            CaseResult(
                name: "memory-dispatch", unit: .bytes, samples: runs.map { $0.values["peak"] ?? $0.peakResidentBytes },
                target: .atMost(10 * 1_048_576))
        ]
    } catch {
        StandardStream.error.write("appcore-bench: memory-dispatch failed: \(error)\n")
        return []
    }
}

struct ChildError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The cases of the real-data-sizes issue.
func scaleBenchmarks(_ plan: RunPlan, selected: @Sendable (String) -> Bool) async -> [CaseResult] {
    var results: [CaseResult] = []
    // Fresh processes are slow to repeat: at most five runs, and a tenth of the notes for --quick.
    let childPlan = RunPlan(warmUps: 0, runs: min(plan.runs, 5), scale: plan.scale)
    let notes = plan.scale < 1 ? scaleNotes / 10 : scaleNotes
    do {
        if selected("scale-notes-add") || selected("scale-memory") {
            let runs = try (0..<childPlan.runs).map { _ in try runChild(["notes-add", String(notes)]) }
            let last = runs.map { $0.values["last"] ?? 0 }
            let ratios = runs.map { ($0.values["last"] ?? 0) / max(1, $0.values["first"] ?? 1) }
            if selected("scale-notes-add") {
                results.append(CaseResult(name: "scale-notes-add", unit: .perSecond, samples: last, target: .atLeast(20_000)))
                results.append(CaseResult(name: "scale-notes-add-ratio", unit: .ratio, samples: ratios, target: .atLeast(0.67)))
            }
            if selected("scale-memory") {
                results.append(
                    CaseResult(
                        name: "scale-memory", unit: .bytes, samples: runs.map { $0.values["peak"] ?? $0.peakResidentBytes },
                        target: .atMost(250 * 1_048_576)))
            }
        }
        if selected("scale-sign-in") {
            let folder = NSTemporaryDirectory() + "appcore-bench-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let path = folder + "/sign-in.sqlite"
            try await prepareSignInDatabase(at: path, notes: notes)
            let runs = try (0..<childPlan.runs).map { _ in try runChild(["sign-in", path, String(notes)]) }
            results.append(
                CaseResult(
                    name: "scale-sign-in", unit: .milliseconds, samples: runs.map { $0.values["milliseconds"] ?? .infinity },
                    target: .atMost(1_000)))
        }
    } catch {
        StandardStream.error.write("appcore-bench: a scale case failed: \(error)\n")
    }
    return results
}
