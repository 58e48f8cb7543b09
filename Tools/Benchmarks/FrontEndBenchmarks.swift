import AppHost
import Foundation
import Persistence
import StoreBenchmarks

/// The cases of the front-end issue (27): what a UI's main actor and a pipe's reader see.

/// The longest gap, in milliseconds, between the ticks of a main-actor ticker (1 ms sleeps)
/// while the main actor performs, on a database: a sign-up, a sign-in to an account holding
/// `scaleNotes` notes (which lists them) and a reload of those notes.
@MainActor
func mainActorStallSample(databasePath path: String) async -> Double {
    guard let host = try? await AppHost(storage: .database(path: path), options: AppHost.Options(journal: .off, history: nil)) else {
        fatalError("the benchmark host could not open \(path)")
    }
    let ticker = MainActorTicker()
    ticker.start()
    let account = "stall.\(UUID().uuidString.prefix(8).lowercased())"
    let intents: [Intent] = [
        .signUp(username: account, password: "benchmark"),
        .typeUsername(username: scaleCredentials.username.rawValue), .typePassword(password: scaleCredentials.password.revealed),
        .signIn, .reloadNotes,
    ]
    for intent in intents {
        let outcome = await host.perform(intent, timeout: .seconds(60))
        precondition(outcome.status == .completed, "\(intent) ended \(outcome.status)")
    }
    precondition(host.screens.notes.count == scaleNotes, "the reload did not list every note")
    let longest = ticker.stop()
    try? await host.close(timeout: .zero)
    return Double(longest) / 1e6
}

/// Ticks on the main actor every millisecond it can, and keeps the longest gap between ticks.
@MainActor
final class MainActorTicker {
    private var task: Task<Void, Never>?
    private var longestGap: UInt64 = 0
    private var lastTick: UInt64 = 0

    func start() {
        lastTick = monotonicNanoseconds()
        task = Task { @MainActor in
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(1))
                tick()
            }
        }
    }

    private func tick() {
        let now = monotonicNanoseconds()
        longestGap = max(longestGap, now - lastTick)
        lastTick = now
    }

    /// Stops ticking; the longest gap seen, in nanoseconds, counting the one up to now (a main
    /// actor blocked throughout never ticks at all).
    func stop() -> UInt64 {
        tick()
        task?.cancel()
        return longestGap
    }
}

/// A host signed in to the account of `scaleNotes` notes, and a second writer on the same file
/// (another connection: what another process's commit looks like to the host, through the
/// file's shared write-ahead-log index).
struct ExternalChangeRig {
    let host: AppHost
    let writer: AppEnvironment
    let writerToken: AccessToken

    init(databasePath path: String) async throws {
        host = try await AppHost(storage: .database(path: path), options: AppHost.Options(journal: .off, history: nil))
        for intent: Intent in [
            .typeUsername(username: scaleCredentials.username.rawValue),
            .typePassword(password: scaleCredentials.password.revealed), .signIn,
        ] {
            let outcome = await host.perform(intent, timeout: .seconds(60))
            precondition(outcome.status == .completed, "\(intent) ended \(outcome.status)")
        }
        precondition(host.screens.notes.count == scaleNotes)
        writer = AppEnvironment.live(database: try AppSchema.open(path))
        writerToken = try await writer.auth.authenticate(scaleCredentials).token
    }

    /// Milliseconds from the other writer's `create` to the note's arrival in `changes()`.
    func sample() async -> Double {
        let expected = host.screens.notes.count + 1
        let arrival = Task {
            for await screens in host.changes() where screens.notes.count == expected { return monotonicNanoseconds() }
            return UInt64.max
        }
        // Subscribed (its first value, the current screens, is out) before writing.
        try? await Task.sleep(for: .milliseconds(20))
        let start = monotonicNanoseconds()
        let note = Note(id: Note.ID(UUID()), text: "written elsewhere", createdAt: Date())
        _ = try? await writer.notes.create(writerToken, note)
        let timeout = Task {
            try? await Task.sleep(for: .seconds(5))
            arrival.cancel()
        }
        let arrived = await arrival.value
        timeout.cancel()
        precondition(arrived != .max, "the note written elsewhere did not arrive within 5 s")
        return Double(arrived - start) / 1e6
    }

    /// Percent of a core this process used over `duration` with the host idle, watching.
    func idleCPU(over duration: Duration) async -> Double {
        let before = processCPUNanoseconds()
        let start = monotonicNanoseconds()
        try? await Task.sleep(for: duration)
        return Double(processCPUNanoseconds() - before) / Double(monotonicNanoseconds() - start) * 100
    }
}

/// What one run of `appcore-serve` showed: the sign-in reply, then a stream of intents sent at
/// once.
struct ServeSample {
    /// Bytes of the reply to signing in (which lists the first page of notes).
    var signInReply: Int
    /// Intents of the stream per second, from the first line written to the last reply read.
    var perSecond: Double
    /// The longest reply of the stream, in bytes.
    var longestReply: Int
    /// Microseconds of CPU (user and system, every thread) the process spent per intent of the
    /// stream.
    var cpuPerIntent: Double
}

/// Runs `appcore-serve` on the database at `path` (whose account is `scaleCredentials`'),
/// signs in, then sends `stream` at once; with `waitingForIndex`, its CPU is read once its
/// search index holds every note, the work its stream left to the background included.
func serveSample(databasePath path: String, stream: [String], after prelude: [String] = [], waitingForIndex: Bool = false) throws -> ServeSample {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        .deletingLastPathComponent().appendingPathComponent("appcore-serve")
    process.arguments = [path]
    let input = Pipe(), output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    let replies = ReplyReader(output.fileHandleForReading)
    let signIn = [
        #"{"typeUsername":{"username":"\#(scaleCredentials.username.rawValue)"}}"#,
        #"{"typePassword":{"password":"\#(scaleCredentials.password.revealed)"}}"#, #"{"signIn":{}}"#,
    ]
    input.fileHandleForWriting.write(Data((signIn.joined(separator: "\n") + "\n").utf8))
    let (_, signInReply) = replies.wait(for: signIn.count)
    if !prelude.isEmpty {
        input.fileHandleForWriting.write(Data((prelude.joined(separator: "\n") + "\n").utf8))
        _ = replies.wait(for: signIn.count + prelude.count)
    }
    let lines = stream.joined(separator: "\n") + "\n"
    let cpuBefore = try processCPUNanoseconds(of: process.processIdentifier)
    let start = monotonicNanoseconds()
    // Written from a thread of its own: the pipe holds less than every line, and replies are
    // read meanwhile.
    Thread.detachNewThread { input.fileHandleForWriting.write(Data(lines.utf8)) }
    let (end, longest) = replies.wait(for: signIn.count + prelude.count + stream.count)
    if waitingForIndex { try waitUntilIndexed(path) }
    let cpu = try processCPUNanoseconds(of: process.processIdentifier) - cpuBefore
    try input.fileHandleForWriting.close()
    process.waitUntilExit()
    return ServeSample(
        signInReply: signInReply, perSecond: Double(stream.count) / (Double(end - start) / 1e9), longestReply: longest,
        cpuPerIntent: Double(cpu) / 1e3 / Double(stream.count))
}

/// User and system CPU time process `pid` has spent so far, every thread (from
/// `/proc/<pid>/stat`, in clock ticks: 10 ms each here, so measure a stream of seconds).
func processCPUNanoseconds(of pid: Int32) throws -> UInt64 {
    let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
    // Fields after the command name (which may hold spaces): utime is the 14th field, the 12th of these.
    guard let end = stat.lastIndex(of: ")") else { throw ChildError("/proc/\(pid)/stat has no command name") }
    let fields = stat[stat.index(after: end)...].split(separator: " ")
    guard fields.count > 13, let user = UInt64(fields[11]), let system = UInt64(fields[12]) else {
        throw ChildError("/proc/\(pid)/stat has no CPU times")
    }
    return (user + system) * 1_000_000_000 / UInt64(sysconf(Int32(_SC_CLK_TCK)))
}

/// `count` `addNote` lines.
func addNoteLines(_ count: Int) -> [String] {
    (0..<count).map { #"{"addNote":{"text":"served note \#($0)"}}"# }
}

/// `count` lines as a busy user of many notes sends them: adds, one in ten an edit of one of
/// `shown` (notes on the first page, which an edit keeps there), and one in ten a submitted
/// search, in turn for a word a hundredth of the notes hold (`oats`), a seventh (`boiler`),
/// every note (`milk`), and clearing it (issue 57's stream).
func mixedLines(_ count: Int, editing shown: [String]) -> [String] {
    let words = ["oats", "boiler", "milk", ""]
    return (0..<count).map { index in
        switch index % 10 {
        case 9: return #"{"searchNotes":{"query":"\#(words[(index / 10) % words.count])"}}"#
        case 4 where !shown.isEmpty: return #"{"editNote":{"id":"\#(shown[(index / 10) % shown.count])","text":"edited \#(index)"}}"#
        default: return #"{"addNote":{"text":"mixed note \#(index)"}}"#
        }
    }
}

/// The ids of the `count` notes the database at `path` lists first.
func firstListed(_ count: Int, in path: String) throws -> [String] {
    let database = try Database(readingOnly: path, migrations: AppSchema.migrations)
    defer { database.close() }
    return try database.read { db throws(DatabaseError) in
        try db.query("SELECT id FROM notes ORDER BY updated_at DESC, id DESC LIMIT ?", [.int(count)]) { $0.text(0) }
    }
}

/// CPU microseconds per call of `body`, run `count` times in this process.
func cpuMicroseconds(per count: Int, _ body: () async throws -> Void) async rethrows -> Double {
    let start = processCPUNanoseconds()
    for _ in 0..<count { try await body() }
    return Double(processCPUNanoseconds() - start) / 1e3 / Double(count)
}

/// What the statements of a durable add and of a search's first page cost driven directly on
/// the database at `path` (the live clients' own reads and writes, and a journal record made
/// durable), beside what the same intents cost through `appcore-serve`, in turns.
func floorSample(databasePath path: String, iterations: Int) async throws -> (search: Double, searchFloor: Double, add: Double, addFloor: Double) {
    let searches = Array(repeating: #"{"searchNotes":{"query":"boiler"}}"#, count: iterations)
    let search = try serveSample(databasePath: path, stream: searches).cpuPerIntent
    let add = try serveSample(databasePath: path, stream: addNoteLines(iterations), waitingForIndex: true).cpuPerIntent
    let database = try Database(path: path, migrations: AppSchema.migrations)
    defer { database.close() }
    let live = AppEnvironment.live(database: database)
    let token = try await live.auth.authenticate(scaleCredentials).token
    let journal = try Journal<Int, Int>(database: database, stream: "bench/floor")
    let searchFloor = try await cpuMicroseconds(per: iterations) { _ = try await live.notes.page(token, "boiler", after: nil, limit: Notes.pageSize) }
    // Each add, made durable and journaled; then the index statements that make those notes
    // searchable, run by the client's own background indexer in the batches the app's runs
    // (left out, the floor would skip work every add costs the app).
    let started = processCPUNanoseconds()
    for number in 1...iterations {
        _ = try await live.notes.create(token, Note(id: Note.ID(UUID()), text: "floor note \(number)", createdAt: Date()))
        journal.append(number)
        try journal.flush()
    }
    try waitUntilIndexed(path)
    let addFloor = Double(processCPUNanoseconds() - started) / 1e3 / Double(iterations)
    try journal.close()
    return (search, searchFloor, add, addFloor)
}

/// Returns once every note of the database at `path` is in its search index (looked at every
/// 5 ms, read-only: a few looks per indexing pace).
func waitUntilIndexed(_ path: String) throws {
    let database = try Database(readingOnly: path, migrations: AppSchema.migrations)
    defer { database.close() }
    let behind = "SELECT count(*) FROM notes WHERE change_sequence > \(SearchIndex.progressOfNotesOwner)"
    while try database.read({ db throws(DatabaseError) in try db.query(behind) { $0.int(0) }.first ?? 0 }) > 0 { usleep(5_000) }
}

/// Reads reply lines on a thread of its own, counting them and keeping the longest.
final class ReplyReader: @unchecked Sendable {
    private let condition = NSCondition()
    private var lines = 0
    private var longest = 0
    private var lastArrival: UInt64 = 0
    private var longestSinceWait = 0

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            var current = 0
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                condition.lock()
                for byte in data {
                    if byte == UInt8(ascii: "\n") {
                        lines += 1
                        longestSinceWait = max(longestSinceWait, current)
                        current = 0
                    } else {
                        current += 1
                    }
                }
                lastArrival = monotonicNanoseconds()
                condition.broadcast()
                condition.unlock()
            }
        }
    }

    /// Waits until `count` lines arrived in all; when the last did, and the longest line since
    /// the previous wait.
    func wait(for count: Int) -> (arrival: UInt64, longest: Int) {
        condition.lock()
        defer { condition.unlock() }
        while lines < count { condition.wait() }
        defer { longestSinceWait = 0 }
        return (lastArrival, longestSinceWait)
    }
}

/// Runs `body` with the path of a fresh database whose account (`scaleCredentials`) holds
/// `notes` notes, in a temporary folder removed afterwards.
func withSignInDatabase<Result>(_ name: String, notes: Int = scaleNotes, _ body: (String) async throws -> Result) async -> Result {
    let folder = NSTemporaryDirectory() + "appcore-bench-\(name)-" + UUID().uuidString
    try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let path = folder + "/\(name).sqlite"
    do {
        try await prepareSignInDatabase(at: path, notes: notes)
        return try await body(path)
    } catch {
        fatalError("the \(name) benchmark failed on \(path): \(error)")
    }
}

func frontEndBenchmarks(_ plan: RunPlan, selected: @Sendable (String) -> Bool) async -> [CaseResult] {
    var measurements: [CaseResult] = []
    if selected("main-actor-stall") {
        let samples = await withSignInDatabase("stall") { path in await repeated(plan) { await mainActorStallSample(databasePath: path) } }
        measurements.append(CaseResult(name: "main-actor-stall", unit: .milliseconds, samples: samples, target: .atMost(8)))
    }
    if selected("serve-add-10k") || selected("serve-sign-in-10k-reply") || selected("intent-cpu") {
        let samples = await withSignInDatabase("serve") { path in
            // Thrown when appcore-serve is missing: build it with `swift build -c release --product appcore-bench`.
            try (0..<plan.runs).map { _ in try serveSample(databasePath: path, stream: addNoteLines(plan.iterations(1_000))) }
        }
        measurements.append(CaseResult(name: "serve-add-10k", unit: .perSecond, samples: samples.map(\.perSecond), target: .atLeast(5_000)))
        measurements.append(
            CaseResult(
                name: "serve-add-10k-reply", unit: .bytes, samples: samples.map { Double($0.longestReply) },
                target: .atMost(4_096)))
        measurements.append(
            CaseResult(
                name: "serve-sign-in-10k-reply", unit: .bytes, samples: samples.map { Double($0.signInReply) },
                target: .atMost(16_384)))
        measurements.append(CaseResult(name: "intent-cpu", unit: .microseconds, samples: samples.map(\.cpuPerIntent), target: .atMost(200)))
    }
    if selected("serve-add-searching") {
        // Adds while a search that matches every note is shown, against adds alone, in pairs:
        // a shown search costs each add what the add changes, not a look at every match.
        let rates: [[Double]] = await withSignInDatabase("searching") { path in
            var rates: [[Double]] = [[], []]
            for _ in 0..<plan.runs {
                let adds = addNoteLines(plan.iterations(1_000))
                rates[0].append(try serveSample(databasePath: path, stream: adds).perSecond)
                rates[1].append(try serveSample(databasePath: path, stream: adds, after: [#"{"searchNotes":{"query":"milk"}}"#]).perSecond)
            }
            return rates
        }
        measurements.append(CaseResult(name: "serve-add-searching-10k", unit: .perSecond, samples: rates[1], target: nil))
        measurements.append(
            CaseResult(name: "serve-add-searching-ratio", unit: .ratio, samples: zip(rates[1], rates[0]).map { $0 / $1 }, target: .atLeast(0.8)))
    }
    if selected("serve-mixed") {
        // The same stream at 1,000 and at 10,000 notes: a search costs the same at both while writes go on.
        // Run in pairs, one after the other, so that each ratio compares runs the machine's phases
        // (which swing by a quarter here) treated alike.
        let rates: [[Double]] = await withSignInDatabase("mixed-1000", notes: 1_000) { small in
            await withSignInDatabase("mixed-\(scaleNotes)", notes: scaleNotes) { large in
                var rates: [[Double]] = [[], []]
                for _ in 0..<plan.runs {
                    for (index, path) in [small, large].enumerated() {
                        let stream = mixedLines(plan.iterations(1_000), editing: try firstListed(10, in: path))
                        rates[index].append(try serveSample(databasePath: path, stream: stream).perSecond)
                    }
                }
                return rates
            }
        }
        measurements.append(CaseResult(name: "serve-mixed-1k", unit: .perSecond, samples: rates[0], target: nil))
        measurements.append(CaseResult(name: "serve-mixed-10k", unit: .perSecond, samples: rates[1], target: nil))
        measurements.append(CaseResult(name: "serve-mixed-ratio", unit: .ratio, samples: zip(rates[1], rates[0]).map { $0 / $1 }, target: .atLeast(0.7)))
    }
    if selected("floor") {
        // The app's intents against the statements they run, driven directly, in the same run.
        let samples = await withSignInDatabase("floor") { path in
            var samples: [(search: Double, searchFloor: Double, add: Double, addFloor: Double)] = []
            for _ in 0..<plan.runs { samples.append(try await floorSample(databasePath: path, iterations: plan.iterations(500))) }
            return samples
        }
        measurements.append(CaseResult(name: "search-floor", unit: .microseconds, samples: samples.map(\.searchFloor), target: nil))
        measurements.append(
            CaseResult(name: "search-floor-ratio", unit: .ratio, samples: samples.map { $0.search / $0.searchFloor }, target: .atMost(2)))
        measurements.append(CaseResult(name: "intent-floor", unit: .microseconds, samples: samples.map(\.addFloor), target: nil))
        measurements.append(CaseResult(name: "intent-floor-ratio", unit: .ratio, samples: samples.map { $0.add / $0.addFloor }, target: .atMost(2)))
    }
    if selected("external-change") {
        let (latency, idle) = await withSignInDatabase("external") { path in
            let rig = try await ExternalChangeRig(databasePath: path)
            let latency = await repeated(plan) { await rig.sample() }
            var idle: [Double] = []
            for _ in 0..<max(3, plan.runs / 2) { idle.append(await rig.idleCPU(over: .seconds(1))) }
            try? await rig.host.close(timeout: .zero)
            return (latency, idle)
        }
        measurements.append(CaseResult(name: "external-change", unit: .milliseconds, samples: latency, target: .atMost(250)))
        measurements.append(CaseResult(name: "external-change-idle-cpu", unit: .percent, samples: idle, target: .atMost(1)))
    }
    return measurements
}
