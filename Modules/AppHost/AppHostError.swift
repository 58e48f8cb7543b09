import Persistence

/// Why a host could not open or close its storage, in one line a shell can print as it is.
public struct AppHostError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The message.
    public let description: String
    /// The database failure behind it, if any.
    public let database: DatabaseError?

    /// An error with `description`.
    public init(_ description: String) {
        self.description = description
        database = nil
    }

    /// The error for a database failure.
    public init(_ error: DatabaseError) {
        description = error.description
        database = error
    }
}
