import Reducers
import StateStore
import ViewModels

/// The app's screens, by name, in the order front ends list them.
public enum Screen: String, CaseIterable, Codable, Sendable {
    case login, session, profile, notes, counter
}

/// Every screen's snapshot at one moment: what a front end shows.
public struct Screens: Codable, Equatable, Sendable {
    /// The sign-in screen.
    public var login: LoginViewModel.Snapshot {
        get { boxes.login.snapshot }
        set { boxes = Boxes(boxes, login: Shown(newValue)) }
    }
    /// Who is signed in.
    public var session: SessionViewModel.Snapshot {
        get { boxes.session.snapshot }
        set { boxes = Boxes(boxes, session: Shown(newValue)) }
    }
    /// The profile and posts.
    public var profile: ProfileViewModel.Snapshot {
        get { boxes.profile.snapshot }
        set { boxes = Boxes(boxes, profile: Shown(newValue)) }
    }
    /// The notes.
    public var notes: NotesViewModel.Snapshot {
        get { boxes.notes.snapshot }
        set { boxes = Boxes(boxes, notes: Shown(newValue)) }
    }
    /// The counter.
    public var counter: CounterViewModel.Snapshot {
        get { boxes.counter.snapshot }
        set { boxes = Boxes(boxes, counter: Shown(newValue)) }
    }

    private(set) var boxes: Boxes

    /// The screens as they are for `state`.
    public init(_ state: AppFeature.State) {
        self.init(
            login: state.loginSnapshot, session: state.sessionSnapshot, profile: state.profileSnapshot,
            notes: state.notesSnapshot, counter: state.counterSnapshot)
    }

    /// The screens from their snapshots.
    public init(
        login: LoginViewModel.Snapshot, session: SessionViewModel.Snapshot, profile: ProfileViewModel.Snapshot,
        notes: NotesViewModel.Snapshot, counter: CounterViewModel.Snapshot
    ) {
        boxes = Boxes(login: Shown(login), session: Shown(session), profile: Shown(profile), notes: Shown(notes), counter: Shown(counter))
    }

    init(_ boxes: Boxes) {
        self.boxes = boxes
    }

    /// The screens that differ from `earlier`, in `Screen/allCases` order.
    public func changed(since earlier: Screens) -> [Screen] {
        if boxes === earlier.boxes { return [] }
        return Screen.allCases.filter { !isSame($0, as: earlier) }
    }

    /// Whether screen `screen` shows the same here as in `other`.
    public func isSame(_ screen: Screen, as other: Screens) -> Bool {
        let (mine, theirs) = (boxes, other.boxes)
        if mine === theirs { return true }
        return switch screen {
        case .login: mine.login.showsTheSame(as: theirs.login)
        case .session: mine.session.showsTheSame(as: theirs.session)
        case .profile: mine.profile.showsTheSame(as: theirs.profile)
        case .notes: mine.notes.showsTheSame(as: theirs.notes)
        case .counter: mine.counter.showsTheSame(as: theirs.counter)
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
        self.init(
            login: try container.decode(LoginViewModel.Snapshot.self, forKey: .login),
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

    /// The five boxed snapshots; immutable, so shared freely.
    final class Boxes: Sendable {
        let login: Shown<LoginViewModel.Snapshot>
        let session: Shown<SessionViewModel.Snapshot>
        let profile: Shown<ProfileViewModel.Snapshot>
        let notes: Shown<NotesViewModel.Snapshot>
        let counter: Shown<CounterViewModel.Snapshot>

        init(
            login: Shown<LoginViewModel.Snapshot>, session: Shown<SessionViewModel.Snapshot>, profile: Shown<ProfileViewModel.Snapshot>,
            notes: Shown<NotesViewModel.Snapshot>, counter: Shown<CounterViewModel.Snapshot>
        ) {
            self.login = login
            self.session = session
            self.profile = profile
            self.notes = notes
            self.counter = counter
        }

        /// `boxes` with the boxes given here instead of theirs.
        convenience init(
            _ boxes: Boxes, login: Shown<LoginViewModel.Snapshot>? = nil, session: Shown<SessionViewModel.Snapshot>? = nil,
            profile: Shown<ProfileViewModel.Snapshot>? = nil, notes: Shown<NotesViewModel.Snapshot>? = nil,
            counter: Shown<CounterViewModel.Snapshot>? = nil
        ) {
            self.init(
                login: login ?? boxes.login, session: session ?? boxes.session, profile: profile ?? boxes.profile,
                notes: notes ?? boxes.notes, counter: counter ?? boxes.counter)
        }
    }
}

/// One screen's snapshot, boxed once and shared by every ``Screens`` that shows it; with the
/// host and view-model revision it was read at, when a host read it.
final class Shown<Snapshot: Equatable & Sendable>: Sendable {
    let snapshot: Snapshot
    /// The host that read it, and the view model's revision then: equal readings show the same.
    let reading: (host: UInt64, revision: UInt64)?

    init(_ snapshot: Snapshot, host: UInt64? = nil, revision: UInt64 = 0) {
        self.snapshot = snapshot
        reading = host.map { ($0, revision) }
    }

    /// Whether `other` shows the same snapshot, told from identity or the readings when possible.
    func showsTheSame(as other: Shown) -> Bool {
        if self === other { return true }
        if let reading, let otherReading = other.reading, reading == otherReading { return true }
        return snapshot == other.snapshot
    }
}

/// How an intent ended, and the screens it left.
public struct IntentOutcome: Codable, Equatable, Sendable {
    /// How an intent ended.
    public enum Status: Codable, Equatable, Sendable {
        /// It was done, and everything it set in motion finished.
        case completed
        /// The app refused it (or an action its effects sent).
        case rejected(reason: String)
        /// It ran, and a client call it made failed.
        case failed(reason: String)
        /// Its work was still running when the timeout passed.
        case timedOut(running: [String])
    }

    /// How the intent ended.
    public var status: Status
    /// The screens it changed, in `Screen/allCases` order.
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

extension IntentOutcome.Status {
    /// The outcome an intent's diagnostics decide: failed, rejected, or `nil` when none does.
    package init?(deciding diagnostics: some Sequence<Diagnostic>) {
        for diagnostic in diagnostics {
            switch diagnostic.kind {
            case .failure:
                self = .failed(reason: diagnostic.reason ?? diagnostic.message)
            case .sendAfterShutdown:
                self = .failed(reason: "The app was closing, so nothing was done.")
            case .invalidTransition, .missingChild:
                self = .rejected(reason: diagnostic.reason ?? diagnostic.message)
            case .unhandledEffectError, .reentrantSend, .sendAfterEffectFinished:
                continue
            }
            return
        }
        return nil
    }
}
