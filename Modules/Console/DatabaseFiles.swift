import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// The files of a database, which nothing but SQLite may open while it is open: closing another
/// descriptor of the file drops the process's locks, and writing one damages it.
public enum DatabaseFiles {
    /// Whether `path` names one of the files of the database at `database` (the same file
    /// through another name or a link counts).
    public static func contain(_ path: String, database: String) -> Bool {
        [database, database + "-wal", database + "-shm", database + "-journal"].contains { isSameFile(path, $0) }
    }

    private static func isSameFile(_ one: String, _ other: String) -> Bool {
        var first = stat(), second = stat()
        if stat(one, &first) == 0, stat(other, &second) == 0 { return first.st_dev == second.st_dev && first.st_ino == second.st_ino }
        return URL(fileURLWithPath: one).standardizedFileURL.path == URL(fileURLWithPath: other).standardizedFileURL.path
    }
}
