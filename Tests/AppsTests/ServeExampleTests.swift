import Foundation
import TestSupport
import Testing

/// The JSON-lines front end of the AppHost article "Building a front end" (its copy there is
/// checked by DocumentationExampleTests):
/// the built program answers JSON intents with JSON outcomes.
@Suite("appcore-serve, the front-end article's example")
struct ServeExampleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func itAnswersEachIntentWithItsSettledOutcome() async throws {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent("appcore-serve")
        let input = ChildProcesses.pipe(), output = ChildProcesses.pipe()
        process.arguments = ["--in-memory"]
        process.standardInput = input
        process.standardOutput = output
        try ChildProcesses.start(process)
        let requests = [
            #"{"addNote":{"text":"milk"}}"#,
            #"{"signUp":{"username":"alice.liddell","password":"wonderland"}}"#,
            #"{"typeUsername":{"username":"alice.liddell"}}"#,
            #"{"typePassword":{"password":"wonderland"}}"#,
            #"{"signIn":{}}"#,
            #"{"addNote":{"text":"milk"}}"#,
            "not json",
        ]
        input.fileHandleForWriting.write(Data((requests.joined(separator: "\n") + "\n").utf8))
        try input.fileHandleForWriting.close()
        let data = try await onOwnThread {
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return data
        }
        #expect(process.terminationStatus == 0)
        let text = String(decoding: data, as: UTF8.self)
        #expect(!text.contains("wonderland"), "a password never comes back")
        let replies = try text.split(separator: "\n").map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        #expect(replies.count == requests.count)
        let first = try #require(replies.first?["status"] as? [String: Any])
        #expect((first["rejected"] as? [String: String])?["reason"] == "You are not signed in. Sign in first.")
        // The first reply holds every screen; each later one what changed since the one before.
        let firstScreens = try #require(replies.first?["screens"] as? [String: Any])
        #expect(firstScreens["changed"] as? [String] == ["login", "session", "profile", "notes", "counter"])
        #expect((replies[3]["screens"] as? [String: Any])?["changed"] as? [String] == ["login"])
        #expect((replies[3]["screens"] as? [String: Any])?["notes"] == nil)
        let added = replies[5]
        #expect((added["status"] as? [String: Any])?["completed"] != nil)
        let screens = try #require(added["screens"] as? [String: Any])
        #expect(screens["changed"] as? [String] == ["notes"])
        let notes = try #require(screens["notes"] as? [String: Any])
        #expect(notes["count"] as? Int == 1)
        let changes = try #require((notes["rows"] as? [String: Any])?["changes"] as? [String: Any])
        let upserted = try #require(changes["upserted"] as? [[String: Any]])
        #expect(upserted.count == 1 && upserted.first?["at"] as? Int == 0)
        let row = try #require(upserted.first?["row"] as? [String: Any])
        #expect(row["title"] as? String == "milk" && row["isPending"] as? Bool == false)
        #expect((changes["removed"] as? [Any])?.isEmpty == true)
        #expect(replies.last?["error"] as? String == "it is not valid JSON (at byte 1)")
    }
}

/// `appcore-serve` reads its command line as the other shells do: a flag is never a path, and
/// where its data goes is said, never guessed silently.
@Suite("appcore-serve's command line")
struct ServeCommandLineTests {
    /// Runs `appcore-serve` in `folder` (its working directory and home) with `arguments` and
    /// `input`; its status, standard output and standard error.
    static func serve(_ arguments: [String], input: String = "", in folder: String) async throws -> (status: Int32, output: String, errors: String) {
        try await SharedFileTests.serve(arguments: arguments, input: input, folder: folder)
    }

    /// The files in `folder`, but the profiles a coverage build writes where it runs.
    static func made(in folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).filter { !$0.hasSuffix(".profraw") }
    }

    @Test func helpAndVersionAnswerAndCreateNothing() async throws {
        let (folder, _) = try SignalTests.databaseFolder("appcore-serve-help")
        let help = try await Self.serve(["--help"], in: folder.path)
        #expect(help.status == 0)
        #expect(help.output.hasPrefix("usage: appcore-serve "))
        for option in ["--db PATH", "--in-memory", "--read-only", "--login-style", "--durability"] {
            #expect(help.output.contains(option), "--help explains \(option)")
        }
        // No intent undoes, so serve keeps no history and offers no limits for one.
        #expect(!help.output.contains("--history"))
        let version = try await Self.serve(["--version"], in: folder.path)
        #expect(version.status == 0 && version.output.hasPrefix("appcore-serve "))
        #expect(try Self.made(in: folder.path).isEmpty, "no file was made: not --help, not a database")
    }

    @Test func aFlagIsNeverAPath() async throws {
        let (folder, _) = try SignalTests.databaseFolder("appcore-serve-flag")
        let unknown = try await Self.serve(["--hlep"], in: folder.path)
        #expect(unknown.status == 2 && unknown.errors == "appcore-serve: unknown option --hlep (try --help)\n", "\(unknown.errors)")
        let twoPaths = try await Self.serve(["a.sqlite", "b.sqlite"], in: folder.path)
        #expect(twoPaths.status == 2 && twoPaths.errors.contains("one database only"), "\(twoPaths.errors)")
        #expect(try Self.made(in: folder.path).isEmpty)
    }

    @Test func withNoDatabaseNamedItUsesTheSharedOneAndSaysSo() async throws {
        let (folder, _) = try SignalTests.databaseFolder("appcore-serve-default")
        let first = try await Self.serve([], input: #"{"increment":{}}"# + "\n", in: folder.path)
        let path = folder.path + "/.local/share/appcore/appcore.sqlite"
        #expect(first.status == 0)
        #expect(first.errors == "appcore-serve: database \(path) (--db PATH picks another, --in-memory keeps nothing)\n")
        #expect(FileManager.default.fileExists(atPath: path))
        // The same database as `--db` with its path, and as the REPL's default.
        let again = try await Self.serve(["--db", path], input: #"{"increment":{}}"# + "\n", in: folder.path)
        #expect(again.output.contains(#""count":2"#), "\(again.output)")
        let inMemory = try await Self.serve(["--in-memory"], input: #"{"increment":{}}"# + "\n", in: folder.path)
        #expect(inMemory.errors.isEmpty && inMemory.output.contains(#""count":1"#))
    }
}
