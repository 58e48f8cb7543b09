/// A failure of the database, with what was being done and SQLite's own explanation.
public struct DatabaseError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure it is, for code that reacts to it.
    public enum Kind: String, Hashable, Sendable {
        /// The file could not be opened or created (missing folder, permissions).
        case cannotOpen
        /// The file is not a SQLite database, or it is another program's.
        case notADatabase
        /// The file is a database, but damaged (truncated, overwritten in part).
        case damaged
        /// The database was written by a newer version of AppCore and was left untouched.
        case newerSchema
        /// The database or its folder is read-only.
        case readOnly
        /// The database was opened for reading only, on purpose, and something tried to write.
        case openedReadOnly
        /// The disk is full.
        case full
        /// The file was deleted, or another put in its place, while it was open.
        case moved
        /// The file could not be read or written (an input/output error of the disk or file
        /// system): often passing, so worth trying again.
        case io
        /// Another connection held the database longer than the busy timeout.
        case busy
        /// A constraint (unique, foreign key, check) refused the change.
        case constraint
        /// Anything else SQLite reported.
        case other
    }

    /// What kind of failure it is.
    public let kind: Kind
    /// What was being done: `"open /path/app.sqlite"`, `"insert note"`, `"migrate to version 2"`.
    public let operation: String
    /// SQLite's (extended) result code, or 0 when the failure is AppCore's own.
    public let code: Int32
    /// SQLite's message, or AppCore's explanation.
    public let message: String

    /// A failure of `operation`.
    public init(_ kind: Kind, operation: String, code: Int32 = 0, message: String) {
        self.kind = kind
        self.operation = operation
        self.code = code
        self.message = message
    }

    /// `"<operation> failed: <message>"`, plus what to do when AppCore knows.
    public var description: String {
        "\(operation) failed: \(message)" + (advice.map { " (\($0))" } ?? "")
    }

    /// What happened in a user's terms, and what to do, without the file or the statement.
    public var reason: String {
        switch kind {
        case .full: "the disk is full; free some disk space and retry"
        case .moved:
            "the database file was deleted or replaced while the program ran, so nothing more can be kept; quit and start again to use the file now at its path"
        case .io: "the database file could not be read or written (an input/output error); try again, and check the disk if it keeps failing"
        case .busy: "another process is using the database; retry"
        case .readOnly: "the database is read-only; check its permissions and its folder's"
        case .openedReadOnly: "the database was opened only to look (--read-only), so nothing can be changed"
        case .damaged: "the database is damaged; restore it from a backup, or move it aside to start afresh"
        case .notADatabase: "the file is not an AppCore database"
        case .cannotOpen: "the database could not be opened (\(message))"
        case .newerSchema, .constraint, .other: message
        }
    }

    private var advice: String? {
        switch kind {
        case .readOnly: "the database or its folder is read-only; check the permissions, or open it with --read-only to look without changing it"
        case .full: "free some disk space and retry"
        case .moved: "nothing more can be kept in it; quit and start again"
        case .io: "an input/output error of the disk; try again, and check the disk if it keeps failing"
        case .busy: "another process is using the database; retry"
        case .notADatabase: "the file is not an AppCore database and was left untouched; choose another path"
        case .damaged: "the database is damaged; restore it from a backup, or move it aside to start afresh"
        case .openedReadOnly: "nothing can be changed while it is open with --read-only"
        case .newerSchema, .cannotOpen, .constraint, .other: nil
        }
    }
}
