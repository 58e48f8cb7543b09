import Foundation
import Persistence
import TestSupport
import Testing

/// A file the database refuses is left exactly as it was: its mode, its content, and no side
/// file made beside it; a path that is not a regular file is refused before anything is made.
@Suite("Refused files")
struct RefusedFileTests {
    let folder = TemporaryFolder()
    static let schema = DatabaseTests.schema

    /// The mode, content and neighbours of `path`, to compare before and after.
    struct Snapshot: Equatable {
        var mode: mode_t
        var content: Data?
        var neighbours: [String]

        init(_ path: String) {
            var status = stat()
            mode = stat(path, &status) == 0 ? status.st_mode : 0
            var isFolder: ObjCBool = false
            content =
                FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && !isFolder.boolValue && status.st_mode & S_IFMT == S_IFREG
                ? FileManager.default.contents(atPath: path) : nil
            let name = (path as NSString).lastPathComponent
            neighbours = ((try? FileManager.default.contentsOfDirectory(atPath: (path as NSString).deletingLastPathComponent)) ?? [])
                .filter { $0.hasPrefix(name) && $0 != name }.sorted()
        }
    }

    /// Opens `path` expecting a refusal; its error.
    func refusal(_ path: String, applicationID: Int32? = 0x7465_7374) throws -> DatabaseError {
        do {
            let database = try Database(path: path, migrations: Self.schema, applicationID: applicationID)
            database.close()
        } catch {
            return error
        }
        throw Refused.not(path)
    }

    enum Refused: Error { case not(String) }

    @Test func aTextFileOpenToOthersKeepsItsModeAndGetsNoSideFiles() throws {
        let path = folder.file("notes.txt")
        #expect(FileManager.default.createFile(atPath: path, contents: Data("precious\n".utf8), attributes: [.posixPermissions: 0o644]))
        let before = Snapshot(path)
        #expect(try refusal(path).kind == .notADatabase)
        #expect(Snapshot(path) == before)
    }

    @Test func anotherProgramsDatabaseThroughALinkKeepsItsMode() throws {
        let target = folder.file("theirs.sqlite")
        let program = try Database(path: target, migrations: [])
        try program.write { db throws(DatabaseError) in try db.execute("CREATE TABLE ledger (amount INTEGER)") }
        program.close()
        #expect(chmod(target, 0o644) == 0)
        let link = folder.file("link.sqlite")
        #expect(symlink(target, link) == 0)
        let before = Snapshot(target)
        #expect(try refusal(link).kind == .notADatabase)
        #expect(Snapshot(target) == before)
        #expect(Snapshot(link).neighbours.isEmpty)
    }

    @Test func aLinkPlantedAsTheLogIsRefusedAndItsTargetLeftAlone() throws {
        let path = folder.file("app.sqlite")
        try Database(path: path, migrations: Self.schema).close()
        let target = folder.file("elsewhere")
        #expect(FileManager.default.createFile(atPath: target, contents: Data("keep".utf8), attributes: [.posixPermissions: 0o644]))
        #expect(symlink(target, path + "-wal") == 0)
        let before = Snapshot(target)
        let error = try refusal(path, applicationID: nil)
        #expect(error.description.contains("app.sqlite-wal is a symbolic link"), "\(error)")
        #expect(Snapshot(target) == before)
    }

    @Test func aFileOthersMayWriteIsRefusedUntouched() throws {
        let path = folder.file("app.sqlite")
        try Database(path: path, migrations: Self.schema).close()
        #expect(chmod(path, 0o666) == 0)
        let before = Snapshot(path)
        let error = try refusal(path, applicationID: nil)
        #expect(error.description.contains("can be written by other users (mode 666)"), "\(error)")
        #expect(Snapshot(path) == before)
    }

    @Test(.enabled(if: getuid() == 0, "needs root to give a file to another user"))
    func aFileOfAnotherUserIsRefusedUntouched() throws {
        let path = folder.file("app.sqlite")
        try Database(path: path, migrations: Self.schema).close()
        #expect(chown(path, 12_345, 12_345) == 0)
        let before = Snapshot(path)
        let error = try refusal(path, applicationID: nil)
        #expect(error.description.contains("belongs to another user (uid 12345)"), "\(error)")
        #expect(Snapshot(path) == before)
    }

    @Test func aFolderAPipeAndADeviceAreRefusedBeforeAnythingIsMade() throws {
        let directory = folder.file("folder.sqlite")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        let fifo = folder.file("pipe.sqlite")
        #expect(mkfifo(fifo, 0o644) == 0)
        for (path, kind) in [(directory, "a directory"), (fifo, "a named pipe"), ("/dev/null", "a character device")] {
            let before = Snapshot(path)
            let error = try refusal(path)
            #expect(error.kind == .cannotOpen)
            #expect(error.description.contains("is \(kind), not a regular file"), "\(error)")
            #expect(Snapshot(path) == before, "\(path)")
            let reading = try? Database(readingOnly: path, migrations: Self.schema)
            #expect(reading == nil)
        }
        #expect(!FileManager.default.fileExists(atPath: "/dev/null-journal"))
    }
}
