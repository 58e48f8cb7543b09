import Foundation
import Models

/// Everything features may use of the outside world: the clients, a clock, ids and dates.
public struct AppEnvironment: Sendable {
    /// Accounts and sessions.
    public var auth: AuthClient
    /// The user's profile and posts.
    public var profile: ProfileClient
    /// The user's notes.
    public var notes: NotesClient
    /// The clock effects wait on (debounce, latency): a test clock in tests.
    public var clock: any Clock<Duration>
    /// Where new ids come from.
    public var uuid: UUIDGenerator
    /// Where the current date comes from.
    public var now: DateGenerator

    /// Creates an environment from its parts.
    public init(
        auth: AuthClient,
        profile: ProfileClient,
        notes: NotesClient,
        clock: any Clock<Duration>,
        uuid: UUIDGenerator,
        now: DateGenerator
    ) {
        self.auth = auth
        self.profile = profile
        self.notes = notes
        self.clock = clock
        self.uuid = uuid
        self.now = now
    }

    /// An environment whose every client endpoint reports the call as unexpected and fails.
    public static func failing(
        _ reporter: UnexpectedCallReporter = .standardError,
        clock: any Clock<Duration> = ContinuousClock(),
        now: Date = Date(timeIntervalSince1970: 1_800_000_000)
    ) -> AppEnvironment {
        AppEnvironment(
            auth: .failing(reporter),
            profile: .failing(reporter),
            notes: .failing(reporter),
            clock: clock,
            uuid: .incrementing(),
            now: .constant(now)
        )
    }

    /// An environment whose clients do nothing (see each client's `noop`).
    public static func noop(clock: any Clock<Duration> = ContinuousClock()) -> AppEnvironment {
        AppEnvironment(auth: .noop, profile: .noop, notes: .noop, clock: clock, uuid: .live, now: .live)
    }

    /// Clients backed by an ``InMemoryBackend``.
    public static func inMemory(
        backend: InMemoryBackend? = nil,
        clock: any Clock<Duration> = ContinuousClock(),
        start: Date = Date(timeIntervalSince1970: 1_800_000_000)
    ) -> AppEnvironment {
        let uuid = UUIDGenerator.incrementing()
        let now = DateGenerator.following(clock, from: start)
        let backend = backend ?? InMemoryBackend(uuid: uuid, now: now)
        return AppEnvironment(
            auth: .inMemory(backend),
            profile: .inMemory(backend),
            notes: .inMemory(backend),
            clock: clock,
            uuid: uuid,
            now: now
        )
    }

    // MARK: - Decorators

    /// This environment with `hook` run before every client call.
    public func intercepting(_ hook: @escaping EndpointHook) -> AppEnvironment {
        var environment = self
        environment.auth = auth.intercepting(hook)
        environment.profile = profile.intercepting(hook)
        environment.notes = notes.intercepting(hook)
        return environment
    }

    /// This environment with every client call waiting `latency` on ``clock`` first (a cancelled
    /// wait fails the call with `AppError.cancelled`).
    public func withLatency(_ latency: Duration) -> AppEnvironment {
        let clock = clock
        return intercepting { _ throws(AppError) in
            do {
                try await clock.sleep(for: latency)
            } catch {
                throw AppError.cancelled
            }
        }
    }

    /// This environment with the failures `injector` arms thrown by the calls they name.
    public func injectingFailures(_ injector: FailureInjector) -> AppEnvironment {
        intercepting { endpoint throws(AppError) in try injector.check(endpoint) }
    }
}
