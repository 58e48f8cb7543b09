@_exported import AppHost
import Reducers

/// The login styles a shell can pick (`--login-style fsm|adhoc|middleware`); shells import only
/// Console and AppHost.
public typealias ConsoleLoginStyle = LoginStyle
