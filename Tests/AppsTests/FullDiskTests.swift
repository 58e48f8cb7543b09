import Foundation
import Persistence
import TestSupport
import Testing

/// A real full disk: a 1 MiB tmpfs, where the machine lets the tests mount one (as root, as CI
/// runs); `AppHostTests` acts a full database out with `PRAGMA max_page_count` everywhere else.
@Suite("A full disk, through the batch runner")
struct FullDiskTests {
    /// Mounts a 1 MiB tmpfs at a fresh folder; `nil` where mounting is not allowed.
    static func mountTinyFilesystem() -> String? {
        let folder = NSTemporaryDirectory() + "appcore-tinyfs-\(UUID().uuidString)"
        guard (try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)) != nil else { return nil }
        let mount = Process()
        mount.executableURL = URL(fileURLWithPath: "/bin/mount")
        mount.arguments = ["-t", "tmpfs", "-o", "size=1m", "tmpfs", folder]
        mount.standardError = FileHandle.nullDevice
        guard (try? ChildProcesses.start(mount)) != nil else { return nil }
        mount.waitUntilExit()
        guard mount.terminationStatus == 0 else {
            try? FileManager.default.removeItem(atPath: folder)
            return nil
        }
        return folder
    }

    static func unmount(_ folder: String) {
        let umount = Process()
        umount.executableURL = URL(fileURLWithPath: "/bin/umount")
        umount.arguments = [folder]
        try? ChildProcesses.start(umount)
        umount.waitUntilExit()
        try? FileManager.default.removeItem(atPath: folder)
    }

    @Test(.enabled(if: getuid() == 0, "mounting a small filesystem needs root"))
    func theLinesThatCouldNotSaveFailAndTheRunExitsOne() async throws {
        guard let folder = Self.mountTinyFilesystem() else { return } // no mount here: nothing to check
        defer { Self.unmount(folder) }
        let script = NSTemporaryDirectory() + "appcore-full-\(UUID().uuidString).script"
        defer { try? FileManager.default.removeItem(atPath: script) }
        let filler = String(repeating: "x", count: 200)
        let lines =
            ["signup alice.liddell wonderland", "login.username alice.liddell", "login.password wonderland", "login.submit", "wait 120s"]
            + (1...400).map { "notes.add \"note \($0) \(filler)\"" }
        try lines.joined(separator: "\n").write(toFile: script, atomically: true, encoding: .utf8)
        let run = try await BatchTests.batch(["--json", "--env", "live", "--db", folder + "/app.sqlite", script])
        #expect(run.status == 1, "\(run.errors)")
        let reports = try run.output.split(separator: "\n").dropLast().map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        let failed = reports.filter { $0["ok"] as? Bool == false }
        let saved = reports.filter { $0["ok"] as? Bool == true && ($0["command"] as? String ?? "").hasPrefix("notes.add") }
        #expect(!failed.isEmpty && !saved.isEmpty, "the disk filled up part of the way: \(failed.count) failed")
        let unexplained = failed.compactMap { $0["output"] as? String }.filter { !$0.contains("full") }
        #expect(unexplained.isEmpty, "each failed line says the disk is full: \(unexplained)")

        // Exactly the notes acknowledged are stored.
        let database = try Database(readingOnly: folder + "/app.sqlite", migrations: AppSchema.migrations)
        let stored = try database.read { db throws(DatabaseError) in try db.query("SELECT count(*) FROM notes") { $0.int(0) }.first ?? 0 }
        database.close()
        #expect(stored == saved.count)
    }
}
