import StateStore
import ViewModels

/// The screens a host read last, so a read rereads only the view models that moved.
final class ScreenCache: Sendable {
    private let login: LoginViewModel
    private let session: SessionViewModel
    private let profile: ProfileViewModel
    private let notes: NotesViewModel
    private let counter: CounterViewModel
    private let last = Locked<Screens?>(nil)
    /// This cache among the others of the process: a snapshot box says which one read it.
    private let id = ScreenCache.nextID.withLock { id in
        defer { id += 1 }
        return id
    }
    private static let nextID = Locked<UInt64>(0)

    init(login: LoginViewModel, session: SessionViewModel, profile: ProfileViewModel, notes: NotesViewModel, counter: CounterViewModel) {
        self.login = login
        self.session = session
        self.profile = profile
        self.notes = notes
        self.counter = counter
    }

    var screens: Screens {
        read(keeping: last.withLock { $0 })
    }

    /// The screens now, keeping those of `last` whose view model did not move since.
    private func read(keeping last: Screens?) -> Screens {
        let screens: Screens
        if let last {
            let kept = last.boxes
            let login = reread(login, kept.login), session = reread(session, kept.session), profile = reread(profile, kept.profile)
            let notes = reread(notes, kept.notes), counter = reread(counter, kept.counter)
            if login == nil, session == nil, profile == nil, notes == nil, counter == nil { return last }
            screens = Screens(Screens.Boxes(kept, login: login, session: session, profile: profile, notes: notes, counter: counter))
        } else {
            screens = Screens(
                Screens.Boxes(
                    login: reading(login), session: reading(session), profile: reading(profile),
                    notes: reading(notes), counter: reading(counter)))
        }
        self.last.withLock { $0 = screens }
        return screens
    }

    /// `model`'s snapshot read now, unless `kept` is that of this cache at its current revision.
    @inline(__always)
    private func reread<Model: HostedViewModel>(_ model: Model, _ kept: Shown<Model.Snapshot>) -> Shown<Model.Snapshot>? {
        if let reading = kept.reading, reading.host == id, reading.revision == model.revision { return nil }
        return reading(model)
    }

    @inline(__always)
    private func reading<Model: HostedViewModel>(_ model: Model) -> Shown<Model.Snapshot> {
        let (snapshot, revision) = model.currentSnapshotAndRevision
        return Shown(snapshot, host: id, revision: revision)
    }
}
