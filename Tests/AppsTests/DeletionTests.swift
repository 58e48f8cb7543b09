import Foundation
import Persistence
import TestSupport
import Testing

/// Deleted means gone: once the REPL has quit, a deleted or edited-away note's text is in none
/// of the database's files — not the notes, the search index, the journal, freed pages or the
/// write-ahead log.
@Suite("Deleted text leaves the files")
struct DeletionTests {
    /// Every file of the database (`-wal` and `-shm` too, if any), as bytes.
    static func files(of path: String) -> [(String, Data)] {
        ["", "-wal", "-shm", "-journal"].compactMap { suffix in FileManager.default.contents(atPath: path + suffix).map { (path + suffix, $0) } }
    }

    @Test func aDeletedAndAnEditedAwayNoteLeaveNoTrace() async throws {
        let folder = TemporaryFolder("appcore-deleted")
        try FileManager.default.createDirectory(atPath: folder.path, withIntermediateDirectories: true)
        let path = folder.path + "/app.sqlite"
        let secrets = ["4711-XYZZY", "ALPHA-OMEGA-77"]
        let repl = try SignalTests.Driven("appcore-repl", ["--db", path], folder: folder.path)
        repl.send([
            "signup alice.liddell wonderland", "login.username alice.liddell", "login.password wonderland", "login.submit", "wait 120s",
            "notes.add \"my bank PIN is 4711-XYZZY\"", "notes.add \"plan ALPHA-OMEGA-77\"", "notes.search bank",
            "notes.search alpha", "wait 1s", "notes.search \"\"",
        ])
        _ = try await repl.read { $0.contains("notes: 2 notes\n") }
        // Once the search index holds both texts (folded), one note is deleted and one rewritten:
        // both must leave the index too. (The reader is closed before the REPL quits, so that the
        // REPL's close is the last and removes the write-ahead log.)
        let reader = try Database(readingOnly: path, migrations: AppSchema.migrations)
        let indexed = await eventually {
            (try? reader.read { db throws(DatabaseError) in try db.query("SELECT count(*) FROM notes_search") { $0.int(0) }.first }) == 2
        }
        reader.close()
        #expect(indexed, "the search index holds both notes")
        repl.send(["notes.delete @2", "notes.edit @1 \"nothing to see\"", "quit"])
        try await onOwnThread { [repl] in repl.process.waitUntilExit() }
        #expect(repl.process.terminationStatus == 0)
        let files = Self.files(of: path)
        #expect(files.count == 1, "only the database file is left: \(files.map(\.0))")
        for (file, bytes) in files {
            for secret in secrets + secrets.map({ $0.lowercased() }) {
                #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(secret) is still in \(file)")
            }
        }
        #expect(files.first?.1.range(of: Data("nothing to see".utf8)) != nil, "the note that is kept is there")
    }
}
