/// A step between `send` and the reducer that may pass, transform, replace or stop each action.
///
/// Middleware wraps `send`, as in Redux: it runs in the `send` call, on the sender's thread, in
/// the order the pipeline lists it, before the action enters the store's queue. Each sender's
/// actions pass it in the order they were sent; a middleware that keeps state of its own must be
/// thread-safe, since two threads may send at once. Work that must wait (a network call, say)
/// returns ``MiddlewareStep/deferred(_:)``, which runs off the store so other actions keep
/// flowing, and hands its result to the rest of the pipeline when it is ready.
///
/// ```swift
/// struct SignInMiddleware: Middleware {
///     let auth: AuthClient
///
///     func handle(_ action: LoginAction, context: MiddlewareContext<Login.State, LoginAction>) -> MiddlewareStep<LoginAction> {
///         guard case .login(let credentials) = action else { return .next(action) }
///         return .deferred {
///             do throws(AppError) { return .setAccessToken(try await auth.authenticate(credentials)) } catch { return .loginFailed(error) }
///         }
///     }
/// }
/// ```
public protocol Middleware<State, Action>: Sendable {
    /// The state of the store the middleware runs in.
    associatedtype State: Sendable
    /// The actions the middleware sees.
    associatedtype Action: Sendable

    /// Decides what happens to `action`.
    func handle(_ action: Action, context: MiddlewareContext<State, Action>) -> MiddlewareStep<Action>
}

/// What a middleware does with an action.
public enum MiddlewareStep<Action: Sendable>: Sendable {
    /// Hands an action to the next middleware (or the reducer): the same one to pass it, another
    /// one to transform or replace it.
    case next(Action)
    /// Ends the action here: no later middleware or reducer sees it.
    case stop
    /// Runs `operation` off the store; the action it returns continues with the next
    /// middleware, and `nil` stops it. Other actions are not held up meanwhile.
    case deferred(_ operation: @Sendable () async -> Action?)
}

/// What a middleware may use besides the action: the store's state and a way to send more actions.
public struct MiddlewareContext<State: Sendable, Action: Sendable>: Sendable {
    @usableFromInline let readState: @Sendable () -> State?
    @usableFromInline let sendAction: @Sendable (Action) -> Void

    @usableFromInline
    package init(readState: @escaping @Sendable () -> State?, send: @escaping @Sendable (Action) -> Void) {
        self.readState = readState
        self.sendAction = send
    }

    /// The store's current state, or `nil` once the store is gone.
    @inlinable
    public var state: State? { readState() }

    /// Dispatches a further action through the whole pipeline now, as `dispatch` does inside
    /// Redux middleware.
    ///
    /// The action being handled has not reached the store yet, so on an idle store the new
    /// action is reduced first; on a busy store it is queued like any other send. To act after
    /// the current action, pass it on and let its reducer return the follow-up as an effect.
    @inlinable
    public func send(_ action: Action) {
        sendAction(action)
    }
}

/// A type-erased middleware, for storing middleware of different types together.
public struct AnyMiddleware<State: Sendable, Action: Sendable>: Middleware {
    @usableFromInline let body: @Sendable (Action, MiddlewareContext<State, Action>) -> MiddlewareStep<Action>

    /// Erases the type of `middleware`.
    @inlinable
    public init<M: Middleware>(_ middleware: M) where M.State == State, M.Action == Action {
        if let erased = middleware as? AnyMiddleware<State, Action> {
            self = erased
        } else {
            body = middleware.handle
        }
    }

    /// A middleware written as a closure.
    @inlinable
    public init(_ handle: @escaping @Sendable (_ action: Action, _ context: MiddlewareContext<State, Action>) -> MiddlewareStep<Action>) {
        body = handle
    }

    /// Calls the wrapped middleware.
    @inlinable
    public func handle(_ action: Action, context: MiddlewareContext<State, Action>) -> MiddlewareStep<Action> {
        body(action, context)
    }
}

/// An ordered list of middleware that a store runs before its reducer.
///
/// Build one with ``MiddlewareBuilder`` (the trailing closure of ``RootStore``'s initializers);
/// an empty pipeline passes every action straight to the reducer.
public struct MiddlewarePipeline<State: Sendable, Action: Sendable>: Sendable {
    /// The middleware, in the order they see an action.
    public let middleware: [AnyMiddleware<State, Action>]

    /// A pipeline of `middleware`, run in order.
    public init(_ middleware: [AnyMiddleware<State, Action>] = []) {
        self.middleware = middleware
    }
}

/// Assembles a ``MiddlewarePipeline`` from middleware listed in order, with `if`, `if`/`else`,
/// `for` loops, optional middleware and nested pipelines.
///
/// ```swift
/// let store = RootStore(initialState: AppFeature.State(), reducer: AppFeature(environment: environment)) {
///     if verbose { LoggingMiddleware(sink: .standardError) }
///     for gate in gates { gate }
///     optionalAnalytics // an `AnyMiddleware?`
///     AppFeature.loginMiddleware(environment)
/// }
/// ```
@resultBuilder
public enum MiddlewareBuilder<State: Sendable, Action: Sendable> {
    /// The pieces a builder block is made of.
    public typealias Component = [AnyMiddleware<State, Action>]

    /// A single middleware.
    @inlinable
    public static func buildExpression<M: Middleware>(_ middleware: M) -> Component
    where M.State == State, M.Action == Action {
        [AnyMiddleware(middleware)]
    }

    /// A middleware that may be absent: `nil` contributes nothing.
    @inlinable
    public static func buildExpression<M: Middleware>(_ middleware: M?) -> Component
    where M.State == State, M.Action == Action {
        middleware.map { [AnyMiddleware($0)] } ?? []
    }

    /// A whole pipeline, spliced in place.
    public static func buildExpression(_ pipeline: MiddlewarePipeline<State, Action>) -> Component {
        pipeline.middleware
    }

    /// The pieces of a block, in order.
    public static func buildBlock(_ components: Component...) -> Component {
        components.flatMap { $0 }
    }

    /// An `if` without `else`.
    public static func buildOptional(_ component: Component?) -> Component {
        component ?? []
    }

    /// The `if` branch of an `if`/`else`.
    public static func buildEither(first component: Component) -> Component {
        component
    }

    /// The `else` branch of an `if`/`else`.
    public static func buildEither(second component: Component) -> Component {
        component
    }

    /// The middleware produced by a `for` loop, in order.
    public static func buildArray(_ components: [Component]) -> Component {
        components.flatMap { $0 }
    }

    /// Middleware inside `if #available`.
    public static func buildLimitedAvailability(_ component: Component) -> Component {
        component
    }

    /// The finished pipeline.
    public static func buildFinalResult(_ component: Component) -> MiddlewarePipeline<State, Action> {
        MiddlewarePipeline(component)
    }
}
