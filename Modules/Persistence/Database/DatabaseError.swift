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
        var text = "\(operation) failed: \(message)"
        switch kind {
        case .readOnly: text += " (the database or its folder is read-only; check the permissions, or open it with --read-only to look without changing it)"
        case .full: text += " (free some disk space and retry)"
        case .busy: text += " (another process is using the database; retry)"
        case .notADatabase: text += " (the file is not an AppCore database and was left untouched; choose another path)"
        case .damaged: text += " (the database is damaged; restore it from a backup, or move it aside to start afresh)"
        case .openedReadOnly: text += " (nothing can be changed while it is open with --read-only)"
        case .newerSchema, .cannotOpen, .constraint, .other: break
        }
        return text
    }
}
