import Foundation
import Testing

/// The README's JSON-lines front end (its copy there is checked by DocumentationExampleTests):
/// the built program answers JSON intents with JSON outcomes.
@Suite("appcore-serve, the README's example")
struct ServeExampleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func itAnswersEachIntentWithItsSettledOutcome() async throws {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent("appcore-serve")
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
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
