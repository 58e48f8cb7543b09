import Reducers
import ViewModels

/// The app's screens, by name, in the order front ends list them.
public enum Screen: String, CaseIterable, Codable, Sendable {
    case login, session, profile, notes, counter
}

/// Every screen's snapshot at one moment: what a front end shows.
///
/// A value like any other; its five snapshots sit in one shared box, so the copies a perform
/// makes (the screens before, after, in the outcome, shown by a front end) cost one reference
/// count each, and screens compared with a copy of themselves are equal at once.
public struct Screens: Codable, Equatable, Sendable {
    /// The sign-in screen.
    public var login: LoginViewModel.Snapshot {
        get { storage.login }
        set { unique().login = newValue }
    }
    /// Who is signed in.
    public var session: SessionViewModel.Snapshot {
        get { storage.session }
        set { unique().session = newValue }
    }
    /// The profile and posts.
    public var profile: ProfileViewModel.Snapshot {
        get { storage.profile }
        set { unique().profile = newValue }
    }
    /// The notes.
    public var notes: NotesViewModel.Snapshot {
        get { storage.notes }
        set { unique().notes = newValue }
    }
    /// The counter.
    public var counter: CounterViewModel.Snapshot {
        get { storage.counter }
        set { unique().counter = newValue }
    }

    private var storage: Storage

    /// The screens as they are for `state`.
    public init(_ state: AppFeature.State) {
        self.init(login: state.loginSnapshot, session: state.sessionSnapshot, profile: state.profileSnapshot,
                  notes: state.notesSnapshot, counter: state.counterSnapshot)
    }

    /// The screens from their snapshots.
    public init(
        login: LoginViewModel.Snapshot, session: SessionViewModel.Snapshot, profile: ProfileViewModel.Snapshot,
        notes: NotesViewModel.Snapshot, counter: CounterViewModel.Snapshot
    ) {
        self.init(login: login, session: session, profile: profile, notes: notes, counter: counter, stamp: nil)
    }

    /// The screens from their snapshots, as a host read them at `stamp`.
    init(
        login: LoginViewModel.Snapshot, session: SessionViewModel.Snapshot, profile: ProfileViewModel.Snapshot,
        notes: NotesViewModel.Snapshot, counter: CounterViewModel.Snapshot, stamp: Stamp?
    ) {
        storage = Storage(login: login, session: session, profile: profile, notes: notes, counter: counter, stamp: stamp)
    }

    /// Which host read these screens from its view models, and at which revision of each: two
    /// screens with one host's stamp and the same revision of a screen show the same there.
    struct Stamp: Equatable, Sendable {
        let host: UInt64
        var login: UInt64 = 0
        var session: UInt64 = 0
        var profile: UInt64 = 0
        var notes: UInt64 = 0
        var counter: UInt64 = 0

        func revision(of screen: Screen) -> UInt64 {
            switch screen {
            case .login: login
            case .session: session
            case .profile: profile
            case .notes: notes
            case .counter: counter
            }
        }
    }

    /// The stamp of a host's read; `nil` for screens made or changed otherwise.
    var stamp: Stamp? { storage.stamp }

    /// The screens that differ from `earlier`, in ``Screen/allCases`` order.
    public func changed(since earlier: Screens) -> [Screen] {
        if storage === earlier.storage { return [] }
        return Screen.allCases.filter { !isSame($0, as: earlier) }
    }

    /// Whether screen `screen` shows the same here as in `other`.
    public func isSame(_ screen: Screen, as other: Screens) -> Bool {
        if storage === other.storage { return true }
        if let stamp = storage.stamp, let otherStamp = other.storage.stamp, stamp.host == otherStamp.host,
           stamp.revision(of: screen) == otherStamp.revision(of: screen) {
            return true
        }
        return switch screen {
        case .login: login == other.login
        case .session: session == other.session
        case .profile: profile == other.profile
        case .notes: notes == other.notes
        case .counter: counter == other.counter
        }
    }

    /// Whether both show the same on every screen.
    public static func == (lhs: Screens, rhs: Screens) -> Bool {
        lhs.changed(since: rhs).isEmpty
    }

    private enum CodingKeys: String, CodingKey {
        case login, session, profile, notes, counter
    }

    /// Decodes the five snapshots.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(login: try container.decode(LoginViewModel.Snapshot.self, forKey: .login),
                  session: try container.decode(SessionViewModel.Snapshot.self, forKey: .session),
                  profile: try container.decode(ProfileViewModel.Snapshot.self, forKey: .profile),
                  notes: try container.decode(NotesViewModel.Snapshot.self, forKey: .notes),
                  counter: try container.decode(CounterViewModel.Snapshot.self, forKey: .counter))
    }

    /// Encodes the five snapshots.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(login, forKey: .login)
        try container.encode(session, forKey: .session)
        try container.encode(profile, forKey: .profile)
        try container.encode(notes, forKey: .notes)
        try container.encode(counter, forKey: .counter)
    }

    /// The box, copied first if another value shares it.
    private mutating func unique() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }

    /// The five snapshots. Changed only through `unique()`, when no other value holds it, so
    /// sharing it between threads is sharing an immutable value.
    private final class Storage: @unchecked Sendable {
        var login: LoginViewModel.Snapshot
        var session: SessionViewModel.Snapshot
        var profile: ProfileViewModel.Snapshot
        var notes: NotesViewModel.Snapshot
        var counter: CounterViewModel.Snapshot
        /// Set only by the host that read the snapshots; a copy made to be changed has none.
        let stamp: Stamp?

        init(login: LoginViewModel.Snapshot, session: SessionViewModel.Snapshot, profile: ProfileViewModel.Snapshot,
             notes: NotesViewModel.Snapshot, counter: CounterViewModel.Snapshot, stamp: Stamp?) {
            self.login = login
            self.session = session
            self.profile = profile
            self.notes = notes
            self.counter = counter
            self.stamp = stamp
        }

        func copy() -> Storage {
            Storage(login: login, session: session, profile: profile, notes: notes, counter: counter, stamp: nil)
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
