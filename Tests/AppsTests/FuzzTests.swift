import Foundation
import StateStoreTesting
import TestSupport
import Testing

/// Seeded, generated lines — commands mutated, huge and non-finite numbers, unicode, quotes,
/// NUL and control bytes, invalid UTF-8, long lines — through the built batch runner and the
/// REPL reading a pipe: every run must end with exit code 0, 1 or 2, by itself, in time.
@Suite("Fuzzed input through the built executables")
struct FuzzTests {
    static let commands = [
        "signup", "login.username", "login.password", "login.submit", "login.ack", "logout", "profile.load",
        "profile.retry", "posts.add", "notes.add", "notes.edit", "notes.delete", "notes.select", "notes.search",
        "notes.retry", "counter.increment", "counter.decrement", "counter.reset", "help", "state", "view", "expect",
        "wait", "advance", "fail", "history", "undo", "redo", "jump", "diff", "stop",
    ]

    static let words: [[UInt8]] = [
        "0", "1", "-1", "9223372036854775807", "-9223372036854775808", "99999999999999999999", "1e308", "-1e308",
        "nan", "inf", "-inf", "1e16s", "infs", "nans", "-1s", "86400s", "0.0001ms", "300ms", "2s", "1m",
        "notes", "login", "all", "counter.count", "==", "!=", "<", "contains", "notes.create", "auth.authenticate",
        "alice.liddell", "wonderland", "0003", "--all", "--force", "--include-secrets", "\"", "\"\"", "\"a b\"",
        "\\", "\"\\q\"", "#", "é", "🍮", "\u{202E}", "中文", "!",
    ].map { Array($0.utf8) }

    /// One generated line, as bytes.
    static func line(_ random: inout SeededRandom) -> [UInt8] {
        var bytes: [UInt8] = []
        if random.next() % 10 == 0 { bytes += Array("! ".utf8) }
        var command = Array(commands[Int(random.next() % UInt64(commands.count))].utf8)
        if random.next() % 8 == 0, !command.isEmpty {
            command[Int(random.next() % UInt64(command.count))] = UInt8(truncatingIfNeeded: random.next())
        }
        bytes += command
        for _ in 0..<Int(random.next() % 5) {
            bytes.append(random.next() % 6 == 0 ? 9 : 32)
            switch random.next() % 10 {
            case 0:
                // Raw bytes: control characters, NUL, invalid UTF-8.
                bytes += (0..<Int(random.next() % 8 + 1)).map { _ in UInt8(truncatingIfNeeded: random.next()) }.filter { $0 != 10 }
            case 1:
                bytes += Array(repeating: UInt8(ascii: "x"), count: Int(random.next() % 3000))
            default:
                bytes += words[Int(random.next() % UInt64(words.count))]
            }
        }
        return bytes
    }

    /// `count` lines from `seed`, one per line, a very long one now and then.
    static func script(seed: UInt64, count: Int) -> Data {
        var random = SeededRandom(seed: seed)
        var data = Data()
        for number in 0..<count {
            if number % 500 == 499 {
                data += Data(repeating: UInt8(ascii: "z"), count: 70_000)
            } else {
                data += Data(line(&random))
            }
            data.append(10)
        }
        return data
    }

    /// Runs `executable` with `arguments` and `input` on standard input, in `folder`; returns
    /// how it ended and how long it took.
    static func run(_ executable: String, _ arguments: [String], input: Data, in folder: URL) throws -> (
        reason: Process.TerminationReason, status: Int32, seconds: Double
    ) {
        let directory = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")).deletingLastPathComponent()
        let process = Process()
        process.executableURL = directory.appendingPathComponent(executable)
        process.arguments = arguments
        process.currentDirectoryURL = folder
        process.environment = ["HOME": folder.path, "XDG_DATA_HOME": folder.path, "PATH": "/usr/bin:/bin"]
        let stdin = ChildProcesses.pipe()
        process.standardInput = stdin
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let started = Date()
        try ChildProcesses.start(process)
        stdin.fileHandleForWriting.write(input)
        try stdin.fileHandleForWriting.close()
        process.waitUntilExit()
        return (process.terminationReason, process.terminationStatus, Date().timeIntervalSince(started))
    }

    @Test func twentyThousandGeneratedLinesNeverCrashOrHangEitherShell() async throws {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("appcore-fuzz-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let styles = ["fsm", "adhoc", "middleware"]
        var lines = 0
        let started = Date()
        for chunk in 0..<20 {
            let input = Self.script(seed: 0xF022 + UInt64(chunk), count: 1_000)
            lines += 1_000
            let style = styles[chunk % styles.count]
            let (executable, arguments) =
                chunk % 4 == 3
                ? ("appcore-repl", ["--in-memory", "--login-style", style])
                : ("appcore-batch", ["--login-style", style, "-"])
            let run = try await onOwnThread { try Self.run(executable, arguments, input: input, in: folder) }
            #expect(run.reason == .exit, "\(executable) chunk \(chunk) (seed \(0xF022 + chunk)) ended by signal \(run.status)")
            #expect([0, 1, 2].contains(run.status), "\(executable) chunk \(chunk) exited \(run.status)")
            // A bound for a shell that hangs, not a speed check: the first chunks run while the
            // whole suite starts at once, and one took 39 s of a 2-core machine.
            #expect(run.seconds < 120, "\(executable) chunk \(chunk) took \(run.seconds) s")
        }
        #expect(lines == 20_000)
        print("fuzz: \(lines) lines in \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
    }
}
