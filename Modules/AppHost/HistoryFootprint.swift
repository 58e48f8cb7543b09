import Models
import Reducers
import StateStore

extension Timeline.Footprint where State == AppFeature.State, Action == AppFeature.Action {
    /// What the app's states and actions take, for the console's history budget: O(1) per state,
    /// a note's text counted in the action that carries it, not in every state sharing it.
    public static var app: Self {
        Self(
            state: { state in
                MemoryLayout<AppFeature.State>.size
                    + userBytes(state.account)
                    + state.notes.items.count * noteBytes
                    + (state.notes.searchResults?.count ?? 0) * MemoryLayout<Note.ID>.stride
                    + postCount(state.posts.phase) * MemoryLayout<Post>.stride
            },
            action: { action in
                MemoryLayout<AppFeature.Action>.size + action.payloadBytes
            }
        )
    }

    /// A note in a state: the item and its share of the collection's tree and id index.
    private static var noteBytes: Int { MemoryLayout<Notes.Item>.stride + 64 }

    /// The signed-in user's part, which the state holds in a box of its own.
    private static func userBytes(_ account: AppFeature.Account) -> Int {
        if case .signedIn = account { return MemoryLayout<SignedIn.State>.size }
        return 0
    }

    private static func postCount(_ phase: Posts.Phase) -> Int {
        if case .loaded(let posts) = phase { return posts.count }
        return 0
    }
}
