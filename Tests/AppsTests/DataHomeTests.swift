import Foundation
import TestSupport
import Testing

/// Without a home for the data the shells refuse to guess one, and a data folder that is not
/// the user's alone is refused.
@Suite("Where the data goes")
struct DataHomeTests {
    /// Runs `tool` with `environment` only, `input` on standard input, in `folder`.
    static func run(_ tool: String, _ arguments: [String] = [], environment: [String: String], input: String, in folder: String) async throws -> (
        status: Int32, errors: String
    ) {
        try await onOwnThread {
            let process = Process()
            process.executableURL = try TwoProcessTests.executable(tool)
            process.arguments = arguments
            process.currentDirectoryURL = URL(fileURLWithPath: folder)
            process.environment = environment
            let stdin = ChildProcesses.pipe(), stderr = ChildProcesses.pipe()
            process.standardInput = stdin
            process.standardOutput = FileHandle.nullDevice
            process.standardError = stderr
            // A shell that refuses at once closes its input: writing then must fail, not kill the tests.
            signal(SIGPIPE, SIG_IGN)
            try ChildProcesses.start(process)
            try? stdin.fileHandleForWriting.write(contentsOf: Data(input.utf8))
            try? stdin.fileHandleForWriting.close()
            let errors = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (process.terminationStatus, errors)
        }
    }

    static let shells = [("appcore-serve", #"{"increment":{}}"#), ("appcore-repl", "counter.increment")]

    @Test(arguments: [[:], ["XDG_DATA_HOME": ""], ["HOME": "", "XDG_DATA_HOME": "relative"], ["HOME": "relative/home"]])
    func withNoUsableHomeTheShellsRefuseAndMakeNothing(environment: [String: String]) async throws {
        let folder = TemporaryFolder("appcore-no-home")
        for (shell, line) in Self.shells {
            let run = try await Self.run(shell, environment: environment, input: line + "\n", in: folder.path)
            #expect(run.status == 2, "\(shell) \(environment)")
            #expect(run.errors.contains("there is no folder for the data"), "\(shell): \(run.errors)")
            #expect(run.errors.contains("--db PATH") && run.errors.contains("--in-memory"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasSuffix(".profraw") }.isEmpty)
            // Named explicitly, it runs.
            let named = try await Self.run(shell, ["--in-memory"], environment: environment, input: line + "\n", in: folder.path)
            #expect(named.status == 0, "\(shell): \(named.errors)")
        }
    }

    @Test func aDataFolderOthersMayWriteOrOfAnotherUserIsRefused() async throws {
        let folder = TemporaryFolder("appcore-shared-home")
        let data = folder.path + "/.local/share/appcore"
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        #expect(chmod(data, 0o777) == 0)
        for (shell, line) in Self.shells {
            let run = try await Self.run(shell, environment: ["HOME": folder.path], input: line + "\n", in: folder.path)
            #expect(run.status == 2)
            #expect(run.errors.contains("can be written by other users (mode 777)"), "\(shell): \(run.errors)")
        }
        #expect(!FileManager.default.fileExists(atPath: data + "/appcore.sqlite"))
        if getuid() == 0 {
            #expect(chmod(data, 0o700) == 0 && chown(data, 12_345, 12_345) == 0)
            let run = try await Self.run("appcore-serve", environment: ["HOME": folder.path], input: "", in: folder.path)
            #expect(run.status == 2)
            #expect(run.errors.contains("belongs to another user (uid 12345)"), "\(run.errors)")
        }
    }
}
