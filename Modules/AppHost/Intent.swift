import Models
import Reducers
import StateStore

/// What a user can ask of the app: one case per feature command, the same for every front end.
///
/// Encoded with its labels, so a JSON front end reads well: `{"addNote":{"text":"milk"}}`,
/// `{"signIn":{}}`, `{"editNote":{"id":"…","text":"oat milk"}}`. Note ids are lowercase UUID
/// strings. A password is kept as typed (a front end must be able to send one) but printed as
/// `<redacted>` wherever an intent is described, logged or rendered.
public enum Intent: Codable, Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// Create an account (8+ characters for each field).
    case signUp(username: String, password: String)
    /// Type the username on the sign-in screen.
    case typeUsername(username: String)
    /// Type the password on the sign-in screen.
    case typePassword(password: String)
    /// Sign in with what was typed.
    case signIn
    /// Dismiss the sign-in error.
    case dismissError
    /// Sign out.
    case signOut
    /// Load the profile and the posts.
    case loadProfile
    /// Load again what failed on the profile screen.
    case retryProfile
    /// Publish a post.
    case addPost(text: String)
    /// Add a note; it opens.
    case addNote(text: String)
    /// Change a note's text.
    case editNote(id: Note.ID, text: String)
    /// Delete a note.
    case deleteNote(id: Note.ID)
    /// Open a note, or close the open one with `nil`.
    case selectNote(id: Note.ID?)
    /// Search the notes; an empty query lists them all again.
    case searchNotes(query: String)
    /// Save again a note whose save failed.
    case retryNote(id: Note.ID)
    /// Add one to the counter.
    case increment
    /// Take one from the counter (never below zero).
    case decrement
    /// Set the counter back to zero.
    case reset

    /// The actions the intent sends, in order, given the app's state now (read only by the
    /// intents that depend on it); a reason instead when the intent has nothing to do.
    package func actions(in state: () -> AppFeature.State) -> Result<[AppFeature.Action], Refusal> {
        switch self {
        case .signUp(let username, let password):
            .success([.session(.signUpTapped(Credentials(username: Username(username), password: Password(password))))])
        case .typeUsername(let username): .success([.login(.usernameChanged(Username(username)))])
        case .typePassword(let password): .success([.login(.passwordChanged(Password(password)))])
        case .signIn: .success([.login(.signInTapped)])
        case .dismissError: .success([.login(.errorAcknowledged)])
        case .signOut: .success([.session(.signOutTapped)])
        case .loadProfile: .success([.profile(.load), .posts(.load)])
        case .retryProfile:
            Self.retries(in: state())
        case .addPost(let text): .success([.posts(.add(text))])
        case .addNote(let text): .success([.notes(.addTapped(text))])
        case .editNote(let id, let text): .success([.notes(.edited(id, text))])
        case .deleteNote(let id): .success([.notes(.deleteTapped(id))])
        case .selectNote(let id): .success([.notes(.selected(id))])
        case .searchNotes(let query): .success([.notes(.searchQueryChanged(query))])
        case .retryNote(let id): .success([.notes(.retrySaveTapped(id))])
        case .increment: .success([.counter(.incrementTapped)])
        case .decrement: .success([.counter(.decrementTapped)])
        case .reset: .success([.counter(.resetTapped)])
        }
    }

    /// Why an intent has nothing to do.
    package struct Refusal: Error {
        package let reason: String
    }

    private static func retries(in state: AppFeature.State) -> Result<[AppFeature.Action], Refusal> {
        var actions: [AppFeature.Action] = []
        if case .failed = state.profile { actions.append(.profile(.load)) }
        if case .failed = state.posts.phase { actions.append(.posts(.load)) }
        guard !actions.isEmpty else { return .failure(Refusal(reason: "Nothing on the profile failed to load; load it again instead.")) }
        return .success(actions)
    }

    /// The intent on one line, passwords redacted: `signUp(username: "bob.builder", password: <redacted>)`.
    public var description: String {
        func text(_ value: String) -> String { ValueRenderer.oneLine(value) }
        let redacted = "<redacted>"
        return switch self {
        case .signUp(let username, _): "signUp(username: \(text(username)), password: \(redacted))"
        case .typeUsername(let username): "typeUsername(username: \(text(username)))"
        case .typePassword: "typePassword(password: \(redacted))"
        case .signIn: "signIn"
        case .dismissError: "dismissError"
        case .signOut: "signOut"
        case .loadProfile: "loadProfile"
        case .retryProfile: "retryProfile"
        case .addPost(let post): "addPost(text: \(text(post)))"
        case .addNote(let note): "addNote(text: \(text(note)))"
        case .editNote(let id, let note): "editNote(id: \(id), text: \(text(note)))"
        case .deleteNote(let id): "deleteNote(id: \(id))"
        case .selectNote(let id): "selectNote(id: \(id.map(\.description) ?? "nil"))"
        case .searchNotes(let query): "searchNotes(query: \(text(query)))"
        case .retryNote(let id): "retryNote(id: \(id))"
        case .increment: "increment"
        case .decrement: "decrement"
        case .reset: "reset"
        }
    }

    /// The same as ``description``: a password never shows.
    public var debugDescription: String { description }
}
