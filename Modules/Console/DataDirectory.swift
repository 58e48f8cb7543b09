import Foundation

/// Where the shells keep their default database and the REPL its line history:
/// `$XDG_DATA_HOME/appcore`, or `~/.local/share/appcore`.
public enum DataDirectory {
    /// The folder, created (owner-only) if missing.
    public static func path() -> String {
        let environment = ProcessInfo.processInfo.environment
        let base = environment["XDG_DATA_HOME"] ?? ((environment["HOME"] ?? NSTemporaryDirectory()) + "/.local/share")
        let path = base + "/appcore"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return path
    }

    /// The shells' database when none is named: `appcore.sqlite` in ``path()``.
    public static var defaultDatabase: String { path() + "/appcore.sqlite" }
}
