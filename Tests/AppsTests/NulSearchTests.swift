import Foundation
import TestSupport
import Testing

/// A NUL in a note or a query is text like any other, on both backends.
@Suite("A NUL searched through appcore-serve")
struct NulSearchTests {
    @Test(arguments: [["--in-memory"], ["--db", "app.sqlite"]])
    func aNoteHoldingANulIsFoundAndAQueryHoldingOneIsSearched(arguments: [String]) async throws {
        let (folder, _) = try SignalTests.databaseFolder("appcore-nul")
        let lines =
            ConflictTests.signIn("alice.liddell", signingUp: true) + [
                #"{"addNote":{"text":"before\u0000afterword"}}"#, #"{"searchNotes":{"query":"afterword"}}"#,
                #"{"searchNotes":{"query":"e\u0000a"}}"#, #"{"searchNotes":{"query":"milk\u0000"}}"#,
            ]
        let run = try await SharedFileTests.serve(arguments: arguments, lines: lines, folder: folder.path)
        let replies = run.output.split(separator: "\n").map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        try #require(replies.count == lines.count, "\(run.errors)")
        let counts = replies.suffix(3).map { (($0?["screens"] as? [String: Any])?["notes"] as? [String: Any])?["count"] as? Int }
        let statuses = replies.suffix(3).map { ($0?["status"] as? [String: Any])?.keys.first }
        #expect(statuses == ["completed", "completed", "completed"], "\(run.output.suffix(1_000))")
        #expect(counts == [1, 1, 0], "\(arguments)")
    }
}
