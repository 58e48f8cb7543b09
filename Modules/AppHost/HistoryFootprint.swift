import Models
import Reducers
import StateStore

extension Timeline.Footprint where State == AppFeature.State, Action == AppFeature.Action {
    /// What the app's states and actions take, for the console's history budget.
    ///
    /// Counts what grows with the data — notes and posts in a state, text and lists in an
    /// action — in O(1) per state, since the timeline measures a state at every checkpoint. The
    /// text of a note is counted where it arrives (in the action that carries it), not again in
    /// every state that shares it.
    public static var app: Self {
        Self(
            state: { state in
                MemoryLayout<AppFeature.State>.size
                    + state.notes.items.count * noteBytes
                    + (state.notes.searchResults?.count ?? 0) * MemoryLayout<Note.ID>.stride
                    + postCount(state.posts.phase) * MemoryLayout<Post>.stride
            },
            action: { action in
                MemoryLayout<AppFeature.Action>.size + payloadBytes(of: action)
            }
        )
    }

    /// A note in a state: the item and its share of the collection's tree and id index.
    private static var noteBytes: Int { MemoryLayout<Notes.Item>.stride + 64 }

    private static func postCount(_ phase: Posts.Phase) -> Int {
        if case .loaded(let posts) = phase { return posts.count }
        return 0
    }

    /// What an action carries that grows with the data; a new action must say what it carries.
    private static func payloadBytes(of action: AppFeature.Action) -> Int {
        switch action {
        case .notes(.addTapped(let text)), .notes(.edited(_, let text)), .notes(.changed(_, let text, _)),
            .notes(.searchQueryChanged(let text)), .posts(.add(let text)):
            text.utf8.count
        case .notes(.inserted(let note)), .notes(.saveResponse(_, _, .success(let note))):
            note.text.utf8.count
        case .notes(.listResponse(.success(let notes))), .notes(.searchResponse(_, .success(let notes))):
            notes.reduce(0) { $0 + MemoryLayout<Note>.stride + $1.text.utf8.count }
        case .notes(.changesResponse(_, .success(let changes))):
            changes.changed.reduce(changes.removed.count * MemoryLayout<Note.ID>.stride) { $0 + MemoryLayout<Note>.stride + $1.text.utf8.count }
        case .posts(.loaded(let posts)):
            posts.reduce(0) { $0 + MemoryLayout<Post>.stride + $1.text.utf8.count }
        case .posts(.added(let post)):
            post.text.utf8.count
        case .notes(.searchResponse(let query, .failure)):
            query.utf8.count
        case .notes(.listRequested), .notes(.listResponse(.failure)), .notes(.deleteTapped), .notes(.selected),
            .notes(.retrySaveTapped), .notes(.saveResponse(_, _, .failure)), .notes(.deleteResponse), .notes(.errorDismissed),
            .notes(.followingChanges), .notes(.externalChangesNoticed), .notes(.changesResponse(_, .failure)),
            .posts(.load), .posts(.failed), .posts(.addFailed), .profile, .login, .session, .counter:
            0
        }
    }
}
