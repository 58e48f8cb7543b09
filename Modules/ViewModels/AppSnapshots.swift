import Reducers

/// Every screen's snapshot, derived from the app state in one place, next to each other.
extension AppFeature.State {
    /// What the sign-in screen shows for this state.
    public var loginSnapshot: LoginViewModel.Snapshot { LoginViewModel.Snapshot(loginStatus) }
    /// What the session screen shows for this state.
    public var sessionSnapshot: SessionViewModel.Snapshot {
        SessionViewModel.Snapshot(session, signedIn: signedInUser, isSigningIn: isSigningIn)
    }
    /// What the profile screen shows for this state.
    public var profileSnapshot: ProfileViewModel.Snapshot { ProfileViewModel.Snapshot(profile: profile, posts: posts) }
    /// What the notes screen shows for this state.
    public var notesSnapshot: NotesViewModel.Snapshot { notes.notesSnapshot }
    /// What the counter screen shows for this state.
    public var counterSnapshot: CounterViewModel.Snapshot { counter.counterSnapshot }
}
