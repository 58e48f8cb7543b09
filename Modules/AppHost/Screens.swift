import Reducers
import ViewModels

/// The app's screens, by name, in the order front ends list them.
public enum Screen: String, CaseIterable, Codable, Sendable {
    case login, session, profile, notes, counter
}

/// Every screen's snapshot at one moment: what a front end shows.
public struct Screens: Codable, Equatable, Sendable {
    /// The sign-in screen.
    public var login: LoginViewModel.Snapshot
    /// Who is signed in.
    public var session: SessionViewModel.Snapshot
    /// The profile and posts.
    public var profile: ProfileViewModel.Snapshot
    /// The notes.
    public var notes: NotesViewModel.Snapshot
    /// The counter.
    public var counter: CounterViewModel.Snapshot

    /// The screens as they are for `state`.
    public init(_ state: AppFeature.State) {
        login = state.loginSnapshot
        session = state.sessionSnapshot
        profile = state.profileSnapshot
        notes = state.notesSnapshot
        counter = state.counterSnapshot
    }

    /// The screens from their snapshots.
    public init(
        login: LoginViewModel.Snapshot, session: SessionViewModel.Snapshot, profile: ProfileViewModel.Snapshot,
        notes: NotesViewModel.Snapshot, counter: CounterViewModel.Snapshot
    ) {
        self.login = login
        self.session = session
        self.profile = profile
        self.notes = notes
        self.counter = counter
    }

    /// The screens that differ from `earlier`, in ``Screen/allCases`` order.
    public func changed(since earlier: Screens) -> [Screen] {
        Screen.allCases.filter { !isSame($0, as: earlier) }
    }

    /// Whether screen `screen` shows the same here as in `other`.
    public func isSame(_ screen: Screen, as other: Screens) -> Bool {
        switch screen {
        case .login: login == other.login
        case .session: session == other.session
        case .profile: profile == other.profile
        case .notes: notes == other.notes
        case .counter: counter == other.counter
        }
    }
}

/// How an intent ended, and the screens it left.
public struct IntentOutcome: Codable, Equatable, Sendable {
    /// How an intent ended.
    public enum Status: Codable, Equatable, Sendable {
        /// It was done, and everything it set in motion finished.
        case completed
        /// The app refused it (or an action its effects sent); `reason` says why, in words for
        /// the user: "You are not signed in. Sign in first."
        case rejected(reason: String)
        /// Its work was still running when the timeout passed; `running` names the actions
        /// whose effects had not finished. The work goes on.
        case timedOut(running: [String])
    }

    /// How the intent ended.
    public var status: Status
    /// The screens it changed, in ``Screen/allCases`` order.
    public var changed: [Screen]
    /// The screens once its work settled (or when it timed out).
    public var screens: Screens

    /// An outcome.
    public init(status: Status, changed: [Screen], screens: Screens) {
        self.status = status
        self.changed = changed
        self.screens = screens
    }
}
