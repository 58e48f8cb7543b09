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
    /// How often the notes client looks whether another process wrote to the database
    /// (`AppEnvironment.NotesClient.externalWrites`): the longest a change made elsewhere
    /// waits before it is noticed.
    public var externalWriteInterval: Duration
    /// How many of an owner's latest note changes remember which notes were deleted: a deleted
    /// note leaves a record so other readers learn of it, and records older than this many
    /// changes are dropped. A reader further behind gets the whole list again
    /// (`NoteChanges.replacesAll`). Bounds the records at this many per owner; taken as at
    /// least 1.
    public var deletionWindow: Int
    /// How long failed sign-ins count against a username: its count is forgotten once its last
    /// failure is this old (and on a successful sign-in), so the record stays bounded however
    /// many usernames are tried.
    public var failureMemory: TimeInterval
    /// How long the search index rests between looks for notes written since its last batch:
    /// under a steady stream of writes, about this long's worth of notes wait to be indexed (a
    /// search reads those and matches them itself).
    public var searchIndexPace: Duration

    /// The defaults: 600,000 PBKDF2 rounds (OWASP's advice for PBKDF2-HMAC-SHA256), 30-day
    /// tokens, 3 free attempts per username, then 1 s doubling up to 60 s, failures forgotten
    /// after a day without one; writes by other processes noticed within 100 ms; deletions
    /// remembered for the last 10,000 changes; new notes indexed for search every 50 ms.
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

    /// ``deletionWindow``, at least 1: the newest record must stay, or change numbers (one more
    /// than the highest stored) could be handed out again.
    var keptDeletionChanges: Int64 { Int64(max(1, deletionWindow)) }

    /// How long an attempt waits after `failures` failed ones.
    func throttleDelay(afterFailures failures: Int) -> Duration {
        let doublings = min(max(failures - freeAttempts, 0), 16)
        return min(throttleBase * (1 << doublings), throttleCap)
    }
}
