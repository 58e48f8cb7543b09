import AppHost
import Foundation
import TestSupport
import Testing

/// `--version` and `--generate-completion-script` of both shells, driven as a user would.
@Suite("Versions and completion scripts")
struct CompletionTests {
    static func run(_ tool: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        try await onOwnThread { try runBlocking(tool, arguments) }
    }

    /// `run` on the calling thread, blocking it (a thread of the tasks' shared pool must not).
    private static func runBlocking(_ tool: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = try TwoProcessTests.executable(tool)
        process.arguments = arguments
        let output = ChildProcesses.pipe()
        process.standardOutput = output
        process.standardError = output
        try ChildProcesses.start(process)
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// What bash completes for `words` (the last one being completed) with `tool`'s script.
    static func bashCompletes(_ tool: String, _ words: [String]) async throws -> [String] {
        let script = try await run(tool, ["--generate-completion-script", "bash"]).output
        let function = "_" + tool.replacingOccurrences(of: "-", with: "_")
        let quoted = words.map { "'\($0)'" }.joined(separator: " ")
        let program = script + "\nCOMP_WORDS=(\(tool) \(quoted)); COMP_CWORD=\(words.count); \(function); printf '%s\\n' \"${COMPREPLY[@]}\"\n"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", program]
        process.currentDirectoryURL = URL(fileURLWithPath: NSTemporaryDirectory())
        let output = ChildProcesses.pipe()
        process.standardOutput = output
        try ChildProcesses.start(process)
        return try await onOwnThread {
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        }
    }

    @Test func bothShellsSayTheirVersion() async throws {
        for tool in ["appcore-repl", "appcore-batch"] {
            let (status, output) = try await Self.run(tool, ["--version"])
            #expect(status == 0 && output == "\(tool) \(AppCoreVersion.current)\n")
        }
        #expect(AppCoreVersion.current == "0.1.0")
    }

    @Test func bashCompletesOptionsTheirValuesAndTheBatchRunnersScripts() async throws {
        #expect(try await Self.bashCompletes("appcore-batch", ["--js"]) == ["--json"])
        #expect(try await Self.bashCompletes("appcore-batch", ["--login-style", ""]) == ["fsm", "adhoc", "middleware"])
        #expect(try await Self.bashCompletes("appcore-repl", ["--env", "m"]) == ["memory"])
        #expect(try await Self.bashCompletes("appcore-repl", ["--generate-completion-script", "z"]) == ["zsh"])
        #expect(try await Self.bashCompletes("appcore-batch", ["--jobs", ""]).isEmpty, "a number is not completed")
        // Words that are not options: the batch runner's scripts are files; the REPL takes none.
        let folder = NSTemporaryDirectory() + "appcore-completion-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(FileManager.default.createFile(atPath: folder + "/smoke.script", contents: Data()))
        #expect(try await Self.bashCompletes("appcore-batch", [folder + "/smo"]) == [folder + "/smoke.script"])
        #expect(try await Self.bashCompletes("appcore-repl", [folder + "/smo"]).isEmpty)
    }

    @Test func zshAndFishScriptsNameEveryOptionAndTheirChoices() async throws {
        for tool in ["appcore-repl", "appcore-batch"] {
            let help = try await Self.run(tool, ["--help"]).output
            let options = help.split(separator: "\n").compactMap { line -> String? in
                let word = line.split(separator: " ").first.map(String.init) ?? ""
                return word.hasPrefix("--") ? word.trimmingCharacters(in: CharacterSet(charactersIn: ":")) : nil
            }
            let zsh = try await Self.run(tool, ["--generate-completion-script", "zsh"])
            let fish = try await Self.run(tool, ["--generate-completion-script", "fish"])
            #expect(zsh.status == 0 && zsh.output.hasPrefix("#compdef \(tool)\n"))
            #expect(fish.status == 0)
            for option in options {
                #expect(zsh.output.contains("'\(option)["), "zsh lacks \(option)")
                #expect(fish.output.contains("-l \(option.dropFirst(2)) "), "fish lacks \(option)")
            }
            #expect(zsh.output.contains("(fsm adhoc middleware)") && fish.output.contains("-a 'fsm adhoc middleware'"))
        }
        #expect(try await Self.run("appcore-batch", ["--generate-completion-script", "zsh"]).output.contains("'*:file:_files'"))
        let refused = try await Self.run("appcore-repl", ["--generate-completion-script", "tcsh"])
        #expect(refused.status == 2 && refused.output.contains("bash, zsh, fish (got tcsh)"))
    }
}
