import Persistence
import Reducers
import StateStore

/// Undo, redo and jump over a host's history; each travel is kept as a journal snapshot, since
/// restoring starts from the latest snapshot, so a restart resumes where the user left off.
struct TimeTravel: Sendable {
    let store: RootStore<AppFeature.State, AppFeature.Action>
    let timeline: Timeline<AppFeature.State, AppFeature.Action>?
    let journal: Journal<AppFeature.State, AppFeature.Action>?

    /// Goes back one action; `false` when there is nothing to undo or no history.
    func undo() -> Bool {
        kept(timeline?.undo() ?? false)
    }

    /// Goes forward one action undone; `false` when there is nothing to redo or no history.
    func redo() -> Bool {
        kept(timeline?.redo() ?? false)
    }

    func jump(to index: Int) throws(Timeline<AppFeature.State, AppFeature.Action>.JumpError) {
        guard let timeline else { throw .noSuchEntry(index, available: 0...0) }
        try timeline.jump(to: index)
        kept(true)
    }

    /// Writes the state travelled to as a journal snapshot when the travel moved.
    @discardableResult
    private func kept(_ moved: Bool) -> Bool {
        if moved { try? journal?.snapshot(store.currentState) }
        return moved
    }
}
