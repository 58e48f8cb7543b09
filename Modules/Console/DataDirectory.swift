import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// Where the shells keep their default database and the REPL its line history.
public enum DataDirectory {
    /// Why the data directory cannot be used.
    public struct Unavailable: Error, Sendable, CustomStringConvertible {
        /// The reason, with what to do instead.
        public let description: String
    }

    /// The folder, created owner-only if missing.
    public static func path(environment: [String: String] = ProcessInfo.processInfo.environment) throws(Unavailable) -> String {
        let base: String
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            base = data
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            base = home + "/.local/share"
        } else {
            throw Unavailable(
                description:
                    "there is no folder for the data: HOME is not set to an absolute path, nor XDG_DATA_HOME; pass --db PATH to choose the database, or --in-memory to keep nothing"
            )
        }
        let path = base + "/appcore"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
            throw Unavailable(description: "the data folder \(path) cannot be made or is not a folder; pass --db PATH or --in-memory")
        }
        guard status.st_uid == geteuid() else {
            throw Unavailable(
                description: "the data folder \(path) belongs to another user (uid \(status.st_uid)); pass --db PATH with a folder of your own, or --in-memory")
        }
        guard status.st_mode & 0o022 == 0 else {
            throw Unavailable(
                description:
                    "the data folder \(path) can be written by other users (mode \(String(status.st_mode & 0o777, radix: 8))); make it owner-only (chmod 700), or pass --db PATH"
            )
        }
        return path
    }

    /// The shells' database when none is named: `appcore.sqlite` in ``path(environment:)``.
    public static var defaultDatabase: String {
        get throws(Unavailable) { try path() + "/appcore.sqlite" }
    }
}
