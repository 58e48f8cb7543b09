import Models
import Reducers
import StateStore

/// What a user can ask of the app: one case per feature command, the same for every front end.
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
    /// Search the notes, answered with the results; an empty query lists them all again.
    case searchNotes(query: String)
    /// Type into the notes' search field.
    case typeNotesSearch(query: String)
    /// Save again a note whose save failed.
    case retryNote(id: Note.ID)
    /// Load the notes again from storage (what another process wrote shows too).
    case reloadNotes
    /// Send a reader the next page of the list's rows (a reader holds the first pages only).
    case showMoreNotes
    /// Dismiss the error the notes screen shows.
    case dismissNotesError
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
        case .searchNotes(let query): .success([.notes(.searchSubmitted(query))])
        case .typeNotesSearch(let query): .success([.notes(.searchQueryChanged(query))])
        case .retryNote(let id): .success([.notes(.retrySaveTapped(id))])
        case .reloadNotes: .success([.notes(.listRequested)])
        case .showMoreNotes: .success([.notes(.moreRowsRequested)])
        case .dismissNotesError: .success([.notes(.errorDismissed)])
        case .increment: .success([.counter(.incrementTapped)])
        case .decrement: .success([.counter(.decrementTapped)])
        case .reset: .success([.counter(.resetTapped)])
        }
    }

    package struct Refusal: Error {
        package let reason: String
    }

    private static func retries(in state: AppFeature.State) -> Result<[AppFeature.Action], Refusal> {
        let actions = SignedIn.retries(profile: state.profile, posts: state.posts).map(AppFeature.Action.userPath.embed)
        guard !actions.isEmpty else { return .failure(Refusal(reason: "Nothing on the profile failed to load; load it again instead.")) }
        return .success(actions)
    }

    /// The intent on one line, passwords redacted: `signUp(username: "bob.builder", password: <redacted>)`.
    public var description: String {
        let parameters = kind.parameters
        guard !parameters.isEmpty else { return kind.rawValue }
        let fields = zip(parameters, arguments).map { parameter, argument in
            "\(parameter.label): " + (parameter.value == .secret ? "<redacted>" : argument.description)
        }
        return "\(kind.rawValue)(\(fields.joined(separator: ", ")))"
    }

    /// The same as ``description``: a password never shows.
    public var debugDescription: String { description }
}

// MARK: - The catalog: what each intent is, takes and means

extension Intent {
    /// An intent without its arguments: one case per case of ``Intent``, named alike.
    public enum Kind: String, CaseIterable, Hashable, Sendable {
        case signUp, typeUsername, typePassword, signIn, dismissError, signOut
        case loadProfile, retryProfile, addPost
        case addNote, editNote, deleteNote, selectNote, searchNotes, typeNotesSearch, retryNote, reloadNotes, showMoreNotes, dismissNotesError
        case increment, decrement, reset

        /// The arguments the intent takes, in order.
        public var parameters: [Parameter] { spec.parameters }

        /// One line saying what the intent does, for help texts.
        public var summary: String { spec.summary }

        /// Everything the intent is, but its arguments' values.
        public var spec: Spec { Self.specs[self] ?? declaredSpec }

        private static let specs = Dictionary(uniqueKeysWithValues: allCases.map { ($0, $0.declaredSpec) })

        private var declaredSpec: Spec {
            switch self {
            case .signUp:
                Spec("signup", on: .session, [Parameter("username", .text), Parameter("password", .secret)], "create an account (8+ characters each)") {
                    .signUp(username: try $0.text(0), password: try $0.text(1))
                }
            case .typeUsername:
                Spec("login.username", on: .login, [Parameter("username", .text)], "type the username") { .typeUsername(username: try $0.text(0)) }
            case .typePassword:
                Spec("login.password", on: .login, [Parameter("password", .secret)], "type the password") { .typePassword(password: try $0.text(0)) }
            case .signIn: Spec("login.submit", on: .login, "sign in with what was typed", .signIn)
            case .dismissError: Spec("login.ack", on: .login, "dismiss the sign-in error", .dismissError)
            case .signOut: Spec("logout", on: .session, "sign out", .signOut)
            case .loadProfile: Spec("profile.load", on: .profile, "load the profile and the posts", .loadProfile)
            case .retryProfile: Spec("profile.retry", on: .profile, "load again what failed", .retryProfile)
            case .addPost: Spec("posts.add", on: .profile, [Parameter("text", .text)], "publish a post") { .addPost(text: try $0.text(0)) }
            case .addNote: Spec("notes.add", on: .notes, [Parameter("text", .text)], "add a note (it opens)") { .addNote(text: try $0.text(0)) }
            case .editNote:
                Spec("notes.edit", on: .notes, [Parameter("id", .note), Parameter("text", .text)], "change a note's text") {
                    .editNote(id: try $0.note(0), text: try $0.text(1))
                }
            case .deleteNote: Spec("notes.delete", on: .notes, [Parameter("id", .note)], "delete a note") { .deleteNote(id: try $0.note(0)) }
            case .selectNote:
                Spec("notes.select", on: .notes, [Parameter("id", .optionalNote)], "open a note, or close the open one") {
                    .selectNote(id: try $0.optionalNote(0))
                }
            case .searchNotes:
                Spec("notes.search", on: .notes, [Parameter("query", .text)], "search the notes (an empty query lists all again)") {
                    .searchNotes(query: try $0.text(0))
                }
            case .typeNotesSearch:
                Spec("notes.type-search", on: .notes, [Parameter("query", .text)], "type into the search field (searched once typing pauses)") {
                    .typeNotesSearch(query: try $0.text(0))
                }
            case .retryNote:
                Spec("notes.retry", on: .notes, [Parameter("id", .note)], "save again a note whose save failed") { .retryNote(id: try $0.note(0)) }
            case .reloadNotes: Spec("notes.reload", on: .notes, "load the notes again (with what other processes wrote)", .reloadNotes)
            case .showMoreNotes: Spec("notes.more", on: .notes, "send the next page of rows to a reader that holds the first ones", .showMoreNotes)
            case .dismissNotesError: Spec("notes.ack", on: .notes, "dismiss the notes error", .dismissNotesError)
            case .increment: Spec("counter.increment", on: .counter, "add one to the counter", .increment)
            case .decrement: Spec("counter.decrement", on: .counter, "take one from the counter (never below zero)", .decrement)
            case .reset: Spec("counter.reset", on: .counter, "set the counter back to zero", .reset)
            }
        }
    }

    /// What an intent kind is.
    public struct Spec: Sendable {
        /// The name a command language gives it: `notes.add`.
        public let commandName: String
        /// The screen it acts on (where a front end offers it).
        public let screen: Screen
        /// The arguments it takes, in order.
        public let parameters: [Parameter]
        /// One line saying what it does, for help texts.
        public let summary: String
        /// The intent of these arguments (checked against `parameters` already).
        let make: @Sendable (Arguments) throws -> Intent

        init(
            _ commandName: String, on screen: Screen, _ parameters: [Parameter], _ summary: String,
            make: @escaping @Sendable (Arguments) throws -> Intent
        ) {
            self.commandName = commandName
            self.screen = screen
            self.parameters = parameters
            self.summary = summary
            self.make = make
        }

        init(_ commandName: String, on screen: Screen, _ summary: String, _ intent: Intent) {
            self.init(commandName, on: screen, [], summary) { _ in intent }
        }
    }

    /// The arguments a ``Spec`` makes its intent of, read by position.
    struct Arguments {
        struct Mismatch: Error {}

        let values: [Argument]

        func text(_ index: Int) throws(Mismatch) -> String {
            guard index < values.count, case .text(let text) = values[index] else { throw Mismatch() }
            return text
        }

        func optionalNote(_ index: Int) throws(Mismatch) -> Note.ID? {
            guard index < values.count, case .note(let id) = values[index] else { throw Mismatch() }
            return id
        }

        func note(_ index: Int) throws(Mismatch) -> Note.ID {
            guard let id = try optionalNote(index) else { throw Mismatch() }
            return id
        }
    }

    /// One argument an intent takes: its label (as in the case and in JSON) and what it holds.
    public struct Parameter: Hashable, Sendable {
        /// What an argument holds.
        public enum Value: Hashable, Sendable {
            /// Text shown as typed.
            case text
            /// A password: never shown, logged or recorded in clear.
            case secret
            /// A note's id.
            case note
            /// A note's id, or none.
            case optionalNote
        }

        /// The label: `text`, `id`, `password`.
        public let label: String
        /// What it holds.
        public let value: Value

        /// A parameter labelled `label` holding `value`.
        public init(_ label: String, _ value: Value) {
            self.label = label
            self.value = value
        }
    }

    /// The value of one argument.
    public enum Argument: Hashable, Sendable, CustomStringConvertible {
        /// Text, or a secret.
        case text(String)
        /// A note's id, or none.
        case note(Note.ID?)

        /// Text quoted on one line, an id as it is, `nil` for no note.
        public var description: String {
            switch self {
            case .text(let text): ValueRenderer.oneLine(text)
            case .note(let id): id.map(\.description) ?? "nil"
            }
        }
    }

    /// Which intent this is.
    public var kind: Kind {
        switch self {
        case .signUp: .signUp
        case .typeUsername: .typeUsername
        case .typePassword: .typePassword
        case .signIn: .signIn
        case .dismissError: .dismissError
        case .signOut: .signOut
        case .loadProfile: .loadProfile
        case .retryProfile: .retryProfile
        case .addPost: .addPost
        case .addNote: .addNote
        case .editNote: .editNote
        case .deleteNote: .deleteNote
        case .selectNote: .selectNote
        case .searchNotes: .searchNotes
        case .typeNotesSearch: .typeNotesSearch
        case .retryNote: .retryNote
        case .reloadNotes: .reloadNotes
        case .showMoreNotes: .showMoreNotes
        case .dismissNotesError: .dismissNotesError
        case .increment: .increment
        case .decrement: .decrement
        case .reset: .reset
        }
    }

    /// Its arguments, in the order of ``Kind/parameters``.
    public var arguments: [Argument] {
        switch self {
        case .signUp(let username, let password): [.text(username), .text(password)]
        case .typeUsername(let text), .typePassword(let text), .addPost(let text), .addNote(let text), .searchNotes(let text),
            .typeNotesSearch(let text):
            [.text(text)]
        case .editNote(let id, let text): [.note(id), .text(text)]
        case .deleteNote(let id), .retryNote(let id): [.note(id)]
        case .selectNote(let id): [.note(id)]
        case .signIn, .dismissError, .signOut, .loadProfile, .retryProfile, .reloadNotes, .showMoreNotes, .dismissNotesError,
            .increment, .decrement, .reset:
            []
        }
    }

    /// The intent of `kind` with `arguments` (in the order of ``Kind/parameters``).
    public init?(_ kind: Kind, _ arguments: [Argument]) {
        let spec = kind.spec
        guard arguments.count == spec.parameters.count, let intent = try? spec.make(Arguments(values: arguments)) else { return nil }
        self = intent
    }
}
