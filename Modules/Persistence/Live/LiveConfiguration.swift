import Foundation

/// Settings of the live clients.
public struct LiveConfiguration: Sendable {
    /// PBKDF2 rounds for new passwords (stored with each hash, so it can be raised later).
    public var passwordIterations: Int
    /// How long a token stays valid, in seconds.
    public var tokenLifetime: TimeInterval
    /// Failed sign ins an account may have before each further attempt waits.
    public var freeAttempts: Int
    /// The wait after the first failure beyond the free ones; each further failure doubles it.
    public var throttleBase: Duration
    /// The longest wait.
    public var throttleCap: Duration
    /// How often the notes client looks whether another process wrote: the longest a change made
    /// elsewhere waits before it is noticed.
    public var externalWriteInterval: Duration
    /// How many of an owner's latest note changes remember which notes were deleted.
    public var deletionWindow: Int
    /// How long failed sign-ins count against a username.
    public var failureMemory: TimeInterval
    /// How long the search index rests between looks for notes written since its last batch.
    public var searchIndexPace: Duration

    /// The defaults.
    public init(
        passwordIterations: Int = 600_000,
        tokenLifetime: TimeInterval = 30 * 24 * 3600,
        freeAttempts: Int = 3,
        throttleBase: Duration = .seconds(1),
        throttleCap: Duration = .seconds(60),
        externalWriteInterval: Duration = .milliseconds(100),
        deletionWindow: Int = 10_000,
        failureMemory: TimeInterval = 24 * 3600,
        searchIndexPace: Duration = .milliseconds(50)
    ) {
        self.passwordIterations = passwordIterations
        self.tokenLifetime = tokenLifetime
        self.freeAttempts = freeAttempts
        self.throttleBase = throttleBase
        self.throttleCap = throttleCap
        self.externalWriteInterval = externalWriteInterval
        self.deletionWindow = deletionWindow
        self.failureMemory = failureMemory
        self.searchIndexPace = searchIndexPace
    }

    /// Settings for tests: a low PBKDF2 count, so accounts are quick to create.
    public static let testing = LiveConfiguration(passwordIterations: 1_000)

    /// ``deletionWindow``, at least 1, so change numbers are never handed out again.
    var keptDeletionChanges: Int64 { Int64(max(1, deletionWindow)) }

    func throttleDelay(afterFailures failures: Int) -> Duration {
        let doublings = min(max(failures - freeAttempts, 0), 16)
        return min(throttleBase * (1 << doublings), throttleCap)
    }
}
