import Reducers

/// The app's state, as shells name it (they import only Console and Persistence).
public typealias AppState = AppFeature.State
/// The app's actions, as shells name them.
public typealias AppAction = AppFeature.Action
/// The app's reducer, as shells name it.
public typealias App = AppFeature
/// The login styles a shell can pick (`--login-style fsm|adhoc|middleware`).
public typealias ConsoleLoginStyle = LoginStyle
