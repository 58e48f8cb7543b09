import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The REPL's line history on disk, shared by every REPL of the user: each session adds the
/// lines typed in it, so REPLs that run at once keep each other's lines, and nothing but typing
/// makes it grow (a REPL on piped input neither reads nor writes it).
struct HistoryFile {
    let path: String
    /// How many lines the file keeps, the newest.
    static let limit = 1_000

    /// The lines kept, oldest first; none when there is no file.
    func lines() -> [String] {
        (try? String(contentsOfFile: path, encoding: .utf8))?.split(separator: "\n").map(String.init) ?? []
    }

    /// Adds `typed` after the lines the file holds now (another REPL may have added some since
    /// this one read it), keeping the newest ``limit``. Adding is serialised between processes
    /// by a lock file beside it, and the file is replaced whole (written aside, then renamed),
    /// so a crash mid-way leaves the old one.
    func append(_ typed: [String]) {
        guard !typed.isEmpty else { return }
        let lock = open(path + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lock >= 0 else { return }
        defer { close(lock) }
        while flock(lock, LOCK_EX) != 0 {
            guard errno == EINTR else { return }
        }
        let kept = (lines() + typed).suffix(Self.limit).joined(separator: "\n") + "\n"
        let aside = path + ".\(getpid()).new"
        guard FileManager.default.createFile(atPath: aside, contents: Data(kept.utf8), attributes: [.posixPermissions: 0o600]) else { return }
        if rename(aside, path) != 0 { unlink(aside) }
    }
}
