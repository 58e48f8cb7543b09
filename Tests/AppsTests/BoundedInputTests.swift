import Foundation
import TestSupport
import Testing

/// A line longer than a line may be (1 MiB) is refused as it is read, never held whole: every
/// shell answers it with one short error and goes on, in far less memory than the line.
@Suite("Over-long lines")
struct BoundedInputTests {
    /// 64 MiB: far more than any shell holds at once while running.
    static let huge = 64 << 20

    /// The largest resident size process `pid` reached, in bytes.
    static func peakMemory(of pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
        return try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])) * 1_024
    }

    @Test(arguments: [
        ("appcore-serve", ["--in-memory"], #"{"increment":{}}"#, "the line is longer than 1048576 bytes, the most an intent may have"),
        ("appcore-batch", ["-"], "counter.increment", "the line is longer than 1048576 bytes, the most a line may have; it was not run"),
        ("appcore-repl", ["--in-memory"], "counter.increment", "the line is longer than 1048576 bytes, the most a line may have; it was not run"),
    ])
    func aHugeLineIsRefusedWhileReadingAndTheNextLineRuns(shell: String, arguments: [String], next: String, refusal: String) async throws {
        let folder = TemporaryFolder("appcore-huge")
        try FileManager.default.createDirectory(atPath: folder.path, withIntermediateDirectories: true)
        let running = try SignalTests.Driven(shell, arguments, folder: folder.path)
        // Written from a thread of its own: the write blocks until the shell has read 64 MiB,
        // which on a loaded machine takes long enough to starve the tests' shared pool.
        async let writing: Void = onOwnThread {
            running.input.fileHandleForWriting.write(Data(repeating: UInt8(ascii: "x"), count: Self.huge) + Data("\n\(next)\n".utf8))
        }
        let printed = try await running.read { $0.contains("count") || $0.contains("counter: 1") }
        try await writing
        #expect(printed.contains(refusal), "\(printed.prefix(300))")
        #expect(printed.contains("\"count\":1") || printed.contains("counter: 1"), "the next line ran")
        #expect(printed.utf8.count < 4_096, "the line is not echoed: \(printed.utf8.count) bytes printed")
        let peak = try Self.peakMemory(of: running.process.processIdentifier)
        #expect(peak < Self.huge, "\(shell) held \(peak >> 20) MiB at most, less than the \(Self.huge >> 20) MiB line")
        _ = try await running.end(with: SIGTERM)
    }

    @Test func aScriptFileWithAHugeLineFailsThatLineAndIsReadAsItRuns() async throws {
        let folder = TemporaryFolder("appcore-huge-script")
        try FileManager.default.createDirectory(atPath: folder.path, withIntermediateDirectories: true)
        let script = folder.path + "/huge.script"
        try (Data("counter.increment\n".utf8) + Data(repeating: UInt8(ascii: "y"), count: Self.huge) + Data("\ncounter.increment\n".utf8))
            .write(to: URL(fileURLWithPath: script))
        let run = try await BatchTests.batch(["--json", script])
        #expect(run.status == 1)
        let lines = run.output.split(separator: "\n")
        #expect(lines.count == 4, "three lines and the summary: \(run.output.prefix(500))")
        #expect(lines[1].contains(#""command":"(not shown)","line":2,"ok":false,"output":"the line is longer than 1048576 bytes"#))
        #expect(lines[2].contains(#""output":"counter: 2""#))
    }
}

/// Standard output that cannot be written (a full disk) is said once on standard error, the
/// shell ends with 1, and no line is left torn.
@Suite("A standard output that cannot be written")
struct FullOutputTests {
    @Test(arguments: [
        ("appcore-serve", ["--in-memory"], #"{"increment":{}}"#), ("appcore-batch", ["-"], "counter.increment"),
        ("appcore-repl", ["--in-memory"], "counter.increment"),
    ])
    func isSaidOnceAndEndsTheShellWithOne(shell: String, arguments: [String], line: String) async throws {
        let folder = TemporaryFolder("appcore-full-output")
        try FileManager.default.createDirectory(atPath: folder.path, withIntermediateDirectories: true)
        let (status, said) = try await onOwnThread { () -> (Int32, String) in
            let process = Process()
            process.executableURL = try TwoProcessTests.executable(shell)
            process.arguments = arguments
            process.environment = ["HOME": folder.path, "XDG_DATA_HOME": folder.path]
            let input = ChildProcesses.pipe(), errors = ChildProcesses.pipe()
            process.standardInput = input
            process.standardOutput = FileHandle(forWritingAtPath: "/dev/full")
            process.standardError = errors
            try ChildProcesses.start(process)
            input.fileHandleForWriting.write(Data((Array(repeating: line, count: 5).joined(separator: "\n") + "\n").utf8))
            try input.fileHandleForWriting.close()
            let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (process.terminationStatus, said)
        }
        #expect(status == 1, "\(shell): \(said)")
        #expect(said == "\(shell): standard output could not be written (No space left on device); what was not written is not shown\n")
    }

    @Test(.enabled(if: getuid() == 0, "mounting a small filesystem needs root"))
    func aFullDiskLeavesNoTornReply() async throws {
        guard let mount = FullDiskTests.mountTinyFilesystem() else { return } // no mount here: nothing to check
        defer { FullDiskTests.unmount(mount) }
        // Fill the disk but for room for a few hundred replies.
        try Data(count: (1 << 20) - 48 * 1_024).write(to: URL(fileURLWithPath: mount + "/filler"))
        let repliesPath = mount + "/replies.jsonl"
        let status = try await onOwnThread { () -> Int32 in
            _ = FileManager.default.createFile(atPath: repliesPath, contents: nil)
            let process = Process()
            process.executableURL = try TwoProcessTests.executable("appcore-serve")
            process.arguments = ["--in-memory"]
            let input = ChildProcesses.pipe()
            process.standardInput = input
            process.standardOutput = FileHandle(forWritingAtPath: repliesPath)
            process.standardError = FileHandle.nullDevice
            try ChildProcesses.start(process)
            input.fileHandleForWriting.write(Data(String(repeating: #"{"increment":{}}"# + "\n", count: 3_000).utf8))
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
            return process.terminationStatus
        }
        #expect(status == 1)
        let written = try String(contentsOfFile: repliesPath, encoding: .utf8)
        #expect(written.hasSuffix("\n"), "the last reply is whole")
        let lines = written.split(separator: "\n")
        #expect(lines.count > 10)
        #expect(lines.allSatisfy { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) != nil }, "every reply parses")
    }
}
