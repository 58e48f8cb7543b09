/// A step between `send` and the reducer that may pass, transform, replace or stop each action.
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
    /// Hands an action to the next middleware (or the reducer).
    case next(Action)
    /// Ends the action here: no later middleware or reducer sees it.
    case stop
    /// Runs `operation` off the store.
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
