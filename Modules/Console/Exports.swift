import Reducers
import StateStore

/// The app's state, as shells name it (they import only Console and Persistence).
public typealias AppState = AppFeature.State
/// The app's actions, as shells name them.
public typealias AppAction = AppFeature.Action
/// The app's reducer, as shells name it.
public typealias App = AppFeature
/// The login styles a shell can pick (`--login-style fsm|adhoc|middleware`).
public typealias ConsoleLoginStyle = LoginStyle
/// How much time-travel history a session keeps (`--history-entries`, `--history-mib`): by
/// default 10,000 actions and an estimated 64 MiB, the oldest dropped first.
public typealias HistoryLimits = Timeline<AppFeature.State, AppFeature.Action>.Limits
