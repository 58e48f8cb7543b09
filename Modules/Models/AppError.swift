/// Everything that can go wrong in the app, with a message a person can act on.
public enum AppError: Error, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The username and password do not match an account (deliberately not saying which).
    case invalidCredentials
    /// Sign up chose a username another account has (usernames ignore case).
    case usernameTaken(Username)
    /// Input that breaks a rule; `reason` says which and how to fix it.
    case invalidInput(reason: String)
    /// A request did not reach its service or got no answer.
    case network(reason: String)
    /// The action needs a signed-in user and nobody is signed in.
    case notSignedIn
    /// The session's token is unknown, revoked or expired.
    case sessionExpired
    /// Something addressed by id does not exist (or belongs to someone else).
    case notFound(Resource, id: String)
    /// Storage failed to read or write.
    case storage(reason: String)
    /// The request was cancelled before it finished (a newer one replaced it, or the user left).
    case cancelled
    /// Too many sign ins failed for this username lately.
    case tooManySignInAttempts(retryAfter: Int)
    /// A change was based on a version another writer has since replaced or deleted, so it was not
    /// stored: the user chooses between overwriting theirs and taking it.
    case conflict(NoteConflict)

    /// The kinds of thing an id can address.
    public enum Resource: String, Hashable, Sendable, Codable {
        /// An account.
        case user
        /// A post.
        case post
        /// A note.
        case note
    }

    /// What happened and what to do about it, in one or two sentences.
    public var message: String {
        switch self {
        case .invalidCredentials:
            "The username or password is incorrect. Check both and sign in again."
        case .usernameTaken(let username):
            "The username “\(username)” is taken. Choose another one."
        case .invalidInput(let reason):
            reason
        case .network(let reason):
            "The request failed: \(reason). Check the connection and retry."
        case .notSignedIn:
            "You are not signed in. Sign in first."
        case .sessionExpired:
            "Your session has expired. Sign in again."
        case .notFound(let resource, let id):
            "There is no \(resource.rawValue) with id \(id). It may have been deleted; reload and try again."
        case .storage(let reason):
            "\(reason.prefix(1).uppercased() + reason.dropFirst()). Nothing you typed was lost; retry when the problem is fixed."
        case .cancelled:
            "The request was cancelled."
        case .tooManySignInAttempts(let seconds):
            "Too many sign ins failed for this username. Wait \(seconds) second\(seconds == 1 ? "" : "s"), then sign in again."
        case .conflict(.changed(let theirs)):
            "Another process changed this note since you opened it (theirs: “\(theirs.title)”), so yours was not saved. Retry to overwrite theirs with yours, or reload to take theirs."
        case .conflict(.deleted):
            "Another process deleted this note since you opened it, so yours was not saved. Retry to store yours again, or reload to let it go."
        }
    }

    /// The same as ``message``.
    public var description: String { message }
}

/// What another writer did to a note since the version a refused change was based on.
public enum NoteConflict: Hashable, Sendable, Codable {
    /// It stored this version of the note.
    case changed(Note)
    /// It deleted the note.
    case deleted(Note.ID)

    /// The note's id.
    public var id: Note.ID {
        switch self {
        case .changed(let theirs): theirs.id
        case .deleted(let id): id
        }
    }
}
