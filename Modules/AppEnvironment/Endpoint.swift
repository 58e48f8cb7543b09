import Models
import StateStore

/// Every client endpoint by name.
public enum Endpoint: String, CaseIterable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// `AuthClient.signUp`.
    case authSignUp = "auth.signUp"
    /// `AuthClient.authenticate`.
    case authAuthenticate = "auth.authenticate"
    /// `AuthClient.signOut`.
    case authSignOut = "auth.signOut"
    /// `ProfileClient.load`.
    case profileLoad = "profile.load"
    /// `ProfileClient.loadPosts`.
    case profileLoadPosts = "profile.loadPosts"
    /// `ProfileClient.addPost`.
    case profileAddPost = "profile.addPost"
    /// `NotesClient.list`.
    case notesList = "notes.list"
    /// `NotesClient.create`.
    case notesCreate = "notes.create"
    /// `NotesClient.update`.
    case notesUpdate = "notes.update"
    /// `NotesClient.delete`.
    case notesDelete = "notes.delete"
    /// `NotesClient.search` and `NotesClient.searchMatches`.
    case notesSearch = "notes.search"
    /// `NotesClient.changes`.
    case notesChanges = "notes.changes"

    /// The dotted name, `client.endpoint`.
    public var description: String { rawValue }
}

/// Work run before every endpoint call: it may wait (latency) or throw (an injected failure).
public typealias EndpointHook = @Sendable (Endpoint) async throws(AppError) -> Void

/// Where a failing client reports a call the test did not expect.
public struct UnexpectedCallReporter: Sendable {
    private let handler: @Sendable (String) -> Void

    /// Reports each unexpected call's message to `handler`.
    public init(_ handler: @escaping @Sendable (_ message: String) -> Void) {
        self.handler = handler
    }

    /// Reports that `endpoint` was called.
    public func report(_ endpoint: Endpoint) {
        handler("Unexpected call to \(endpoint): override it in the test's environment if the feature should call it.")
    }

    /// Writes the report to standard error.
    public static let standardError = UnexpectedCallReporter { message in
        StandardStream.error.write(message + "\n")
    }
}

/// The error a failing client's endpoint throws after reporting the call.
func unexpected(_ endpoint: Endpoint, _ reporter: UnexpectedCallReporter) -> AppError {
    reporter.report(endpoint)
    return .network(reason: "\(endpoint) is not implemented in this environment")
}

/// The error a no-op client's endpoint throws when it must return a value it does not have.
func noService(_ endpoint: Endpoint) -> AppError {
    .network(reason: "\(endpoint) has no service behind it (no-op environment)")
}
