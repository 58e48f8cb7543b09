import AppEnvironment
import Models
import StateStore

/// The sign-in screen, in whichever of three interchangeable styles the app picks.
public struct Login: Reducer {
    /// The state of the style in use.
    public enum State: Hashable, Sendable, Codable {
        /// The finite-state style.
        case finiteStates(LoginMachine.State)
        /// The ad hoc properties style.
        case adHoc(AdHocLogin.State)
        /// The middleware style.
        case middleware(MiddlewareLogin.State)

        /// The initial state of `style`.
        public init(style: LoginStyle) {
            switch style {
            case .finiteStates: self = .finiteStates(LoginMachine.State())
            case .adHoc: self = .adHoc(AdHocLogin.State())
            case .middleware: self = .middleware(MiddlewareLogin.State())
            }
        }

        /// Which style this state belongs to.
        public var style: LoginStyle {
            switch self {
            case .finiteStates: .finiteStates
            case .adHoc: .adHoc
            case .middleware: .middleware
            }
        }

        /// Whether someone is signed in.
        public var isAuthenticated: Bool {
            switch self {
            case .finiteStates(let state): state.phase == .authenticated
            case .adHoc(let state): state.isAuthenticated
            case .middleware(let state): state.hasAccessToken
            }
        }

        /// Whether a sign in is under way: `status.isBusy`, told without building the status.
        public var isBusy: Bool {
            switch self {
            case .finiteStates(let state): state.phase == .authenticating
            case .adHoc(let state): state.isBusy
            case .middleware(let state): state.isLoggingIn
            }
        }

        /// What the screen shows, the same for every style.
        public var status: LoginStatus {
            switch self {
            case .finiteStates(let state): state.status
            case .adHoc(let state): state.status
            case .middleware(let state): state.status
            }
        }
    }

    /// The actions every style accepts.
    public typealias Action = LoginAction

    /// Signs people in.
    public let auth: AuthClient

    /// Each style's reducer on its case of the state; the other cases stay silent.
    private let styles:
        IfCaseLetReducer<
            IfCaseLetReducer<
                IfCaseLetReducer<
                    EmptyReducer<State, LoginAction>,
                    TransducerReducer<LoginMachine>
                >, AdHocLogin
            >, MiddlewareLogin
        >

    /// A login feature that authenticates with `auth`.
    public init(auth: AuthClient) {
        self.auth = auth
        styles = EmptyReducer()
            .ifCaseLet(State.finiteStatesCase, action: .identity, reportsOtherCases: false) { LoginMachine.reducer(auth: auth) }
            .ifCaseLet(State.adHocCase, action: .identity, reportsOtherCases: false) { AdHocLogin(auth: auth) }
            .ifCaseLet(State.middlewareCase, action: .identity, reportsOtherCases: false) { MiddlewareLogin() }
    }

    /// Runs the reducer of the style in use.
    public func reduce(into state: inout State, action: LoginAction) -> Effect<LoginAction> {
        styles.reduce(into: &state, action: action)
    }
}

extension Login.State {
    /// The finite-state style's case.
    public static let finiteStatesCase = CasePath<Self, LoginMachine.State>(embed: Self.finiteStates) {
        if case .finiteStates(let state) = $0 { state } else { nil }
    } matches: {
        if case .finiteStates = $0 { true } else { false }
    }
    /// The ad hoc style's case.
    public static let adHocCase = CasePath<Self, AdHocLogin.State>(embed: Self.adHoc) {
        if case .adHoc(let state) = $0 { state } else { nil }
    } matches: {
        if case .adHoc = $0 { true } else { false }
    }
    /// The middleware style's case.
    public static let middlewareCase = CasePath<Self, MiddlewareLogin.State>(embed: Self.middleware) {
        if case .middleware(let state) = $0 { state } else { nil }
    } matches: {
        if case .middleware = $0 { true } else { false }
    }
}

/// The three ways the login feature can be written; front ends pick one with `--login-style`.
public enum LoginStyle: String, CaseIterable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// Finite states (``LoginMachine``).
    case finiteStates = "fsm"
    /// Ad hoc properties (``AdHocLogin``).
    case adHoc = "adhoc"
    /// A middleware performs the sign in (``MiddlewareLogin`` with ``LoginMiddleware``).
    case middleware = "middleware"

    /// The name front ends accept: `fsm`, `adhoc` or `middleware`.
    public var description: String { rawValue }
}

/// What happens on the sign-in screen, whichever style handles it.
public enum LoginAction: Hashable, Sendable, Codable {
    /// The username field now holds this text.
    case usernameChanged(Username)
    /// The password field now holds this text.
    case passwordChanged(Password)
    /// The user asked to sign in.
    case signInTapped
    /// The user dismissed the error shown.
    case errorAcknowledged
    /// The auth client answered a sign in (finite-state and ad hoc styles).
    case authenticationResponse(Outcome<AuthSession>)
    /// Middleware style.
    case login(Credentials)
    /// Middleware style: the middleware signed the user in (`setAccessToken`).
    case setAccessToken(AuthSession)
    /// Middleware style: the middleware's sign in failed.
    case loginFailed(AppError)

    /// The session this action reports as signed in, if it is a successful sign in.
    public var signedInSession: AuthSession? {
        switch self {
        case .authenticationResponse(.success(let session)), .setAccessToken(let session): session
        default: nil
        }
    }
}

/// What a sign-in screen shows: the same for every login style.
public struct LoginStatus: Hashable, Sendable, Codable {
    /// The username typed.
    public var username: Username
    /// The password typed (empty after a successful sign in).
    public var password: Password
    /// Whether both fields are valid and no error is showing.
    public var hasValidCredentials: Bool
    /// Whether a sign in is in progress.
    public var isBusy: Bool
    /// Whether the user is signed in.
    public var isAuthenticated: Bool
    /// The error to show until it is acknowledged; never set while signed in.
    public var error: AppError?

    /// Creates a status.
    public init(
        username: Username = "",
        password: Password = "",
        hasValidCredentials: Bool = false,
        isBusy: Bool = false,
        isAuthenticated: Bool = false,
        error: AppError? = nil
    ) {
        self.username = username
        self.password = password
        self.hasValidCredentials = hasValidCredentials
        self.isBusy = isBusy
        self.isAuthenticated = isAuthenticated
        self.error = error
    }

    /// Whether the sign-in button works now.
    public var isSignInEnabled: Bool { hasValidCredentials && !isBusy && !isAuthenticated }
}

/// Why a sign in cannot start, shared by the three styles so they explain themselves alike.
enum LoginRules {
    static let inProgress = "a sign in is already in progress"
    static let alreadySignedIn = "you are already signed in; sign out first"
    static let acknowledgeFirst = "acknowledge the error shown first"
    static let noSignInInProgress = "no sign in is in progress"
    static let noError = "there is no error to acknowledge"
    static let waitForSignIn = "wait until the sign in in progress finishes"
    /// Why the user's part refuses an action while a sign in runs (a message for the user).
    static let signingIn = "A sign in is in progress. Wait until it ends, then try again."

    static func invalid(_ credentials: Credentials) -> String {
        credentials.problem ?? "the credentials are not valid"
    }

    static func belongsToMiddlewareStyle(_ action: LoginAction) -> String {
        "\(caseName(action)) belongs to the middleware login style, which this store does not use"
    }

    static func caseName(_ action: LoginAction) -> String {
        switch action {
        case .usernameChanged: "usernameChanged"
        case .passwordChanged: "passwordChanged"
        case .signInTapped: "signInTapped"
        case .errorAcknowledged: "errorAcknowledged"
        case .authenticationResponse: "authenticationResponse"
        case .login: "login"
        case .setAccessToken: "setAccessToken"
        case .loginFailed: "loginFailed"
        }
    }
}

extension LoginAction: FeatureAction {
    /// The failed sign-in this action reports.
    public var failure: AppError? {
        switch self {
        case .authenticationResponse(.failure(let error)), .loginFailed(let error): error
        case .usernameChanged, .passwordChanged, .signInTapped, .errorAcknowledged, .authenticationResponse(.success), .login,
            .setAccessToken:
            nil
        }
    }

    /// Whether it holds the typed password.
    public var carriesSecret: Bool {
        switch self {
        case .passwordChanged, .login: true
        case .usernameChanged, .signInTapped, .errorAcknowledged, .authenticationResponse, .setAccessToken, .loginFailed: false
        }
    }

    /// None: sign-in actions carry no data that grows.
    public var payloadBytes: Int { 0 }
}
