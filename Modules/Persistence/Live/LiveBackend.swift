import AppEnvironment
import Foundation
import Models
import StateStore

/// The live clients' rules on a ``Database``, one file per client; this file holds what they share.
final class LiveBackend: Sendable {
    let database: Database
    let configuration: LiveConfiguration
    let clock: any Clock<Duration>
    let uuid: UUIDGenerator
    let now: DateGenerator
    /// Where damage met while reading is reported (rows skipped, named by id).
    let warn: @Sendable (String) -> Void
    /// The notes' full-text index, kept up to date off the writers' path.
    let searchIndex: SearchIndex
    /// This backend's own runs of note writes, which are not conflicts (`NoteVersions`).
    let versions = Locked(NoteVersions())
    /// Where password hashing runs: as long as a hash takes (by design), beside database work.
    private let hashingWork = DispatchQueue(label: "appcore.live.hashing", attributes: .concurrent)

    init(
        database: Database, configuration: LiveConfiguration, clock: any Clock<Duration>, uuid: UUIDGenerator, now: DateGenerator,
        warn: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.warn = warn
        self.database = database
        searchIndex = SearchIndex(database: database, pace: configuration.searchIndexPace)
        self.configuration = configuration
        self.clock = clock
        self.uuid = uuid
        self.now = now
    }

    // MARK: - Off the caller

    /// `body`'s result, computed on the database's queue, never on the calling thread: a wait for
    /// another process's lock or a password hash must not hold a concurrency pool thread.
    func offCaller<T: Sendable>(_ body: @escaping @Sendable () throws(AppError) -> T) async throws(AppError) -> T {
        // The database's work queue: one call after another in the order they were made (a
        // note's newer save is written after its older one), and the journal commits there too.
        try await database.onWorkQueue(body)
    }

    enum Access {
        /// Waiting for it as long as it takes: on the work queue (``offCaller(_:)``).
        case waiting
        /// On the caller's thread, only if that waits for nothing; nothing is done otherwise.
        case withoutWaiting
    }

    /// `body`'s result for a short write: made on the calling thread when that waits for nothing,
    /// else on the work queue as ``offCaller(_:)`` makes it.
    func soon<T: Sendable>(_ body: @escaping @Sendable (Access) throws(AppError) -> T?) async throws(AppError) -> T {
        if let value = try body(.withoutWaiting) { return value }
        return try await offCaller { () throws(AppError) -> T in
            // Waiting, the write is always made.
            guard let value = try body(.waiting) else { throw .storage(reason: "the database did not take the write") }
            return value
        }
    }

    /// `body`'s result (a password hash), computed on the hashing queue.
    func hashing<T: Sendable>(_ body: @escaping @Sendable () throws(AppError) -> T) async throws(AppError) -> T {
        try await result(of: body, on: hashingWork)
    }

    // MARK: - Running in the database

    /// Runs `body` for the token's owner in one read.
    func reading<T>(_ token: AccessToken, _ body: (Connection, User.ID) throws(AppError) -> T) throws(AppError) -> T {
        try inDatabase(write: false, token, body)
    }

    /// Runs `body` for the token's owner in one transaction.
    func writing<T>(_ token: AccessToken, _ body: (Connection, User.ID) throws(AppError) -> T) throws(AppError) -> T {
        try inDatabase(write: true, token, body)
    }

    /// ``writing(_:_:)`` with `access`: `nil`, with nothing done, when it would wait.
    func writing<T>(_ token: AccessToken, _ access: Access, _ body: (Connection, User.ID) throws(AppError) -> T) throws(AppError) -> T? {
        guard access == .withoutWaiting else { return try writing(token, body) }
        return try database.writeWithoutWaiting(
            { (db: Connection) throws(AppError) -> T in try body(db, try self.owner(of: token, in: db)) },
            orFail: { .storage(reason: $0.reason) })
    }

    /// Runs `body` for the token's owner in one read or transaction; failures become `storage`.
    func inDatabase<T>(write: Bool, _ token: AccessToken, _ body: (Connection, User.ID) throws(AppError) -> T) throws(AppError) -> T {
        let asAppError: (DatabaseError) -> AppError = { .storage(reason: $0.reason) }
        let run = { (db: Connection) throws(AppError) -> T in try body(db, try self.owner(of: token, in: db)) }
        return write ? try database.write(run, orFail: asAppError) : try database.read(run, orFail: asAppError)
    }

    /// The id in `column` of `row`; a value that is not one is a damaged row, named.
    static func id<Owner>(_ row: Row, _ column: Int32, _ name: String) throws(DatabaseError) -> Identifier<Owner> {
        let text = row.text(column)
        guard let id = Identifier<Owner>(text) else {
            throw DatabaseError(.damaged, operation: "read \(name)", message: "“\(text)” is not an id")
        }
        return id
    }

    /// `body`'s result, its database failure as ``AppError/storage(reason:)``.
    func storage<T>(_ body: () throws(DatabaseError) -> T) throws(AppError) -> T {
        do { return try body() } catch { throw .storage(reason: error.reason) }
    }
}

extension AppEnvironment {
    /// The live clients, on `database`; `warnings` hears of damaged rows the clients skip.
    public static func live(
        database: Database,
        configuration: LiveConfiguration = LiveConfiguration(),
        clock: any Clock<Duration> = ContinuousClock(),
        uuid: UUIDGenerator = .timeOrdered,
        now: DateGenerator = .live,
        warnings: @escaping @Sendable (String) -> Void = { _ in }
    ) -> AppEnvironment {
        let backend = LiveBackend(database: database, configuration: configuration, clock: clock, uuid: uuid, now: now, warn: warnings)
        return AppEnvironment(
            // What failed is named for the user: the store's reason says why.
            auth: AuthClient(
                signUp: { credentials throws(AppError) in
                    try await AppError.doing("the account was not created") { () async throws(AppError) in try await backend.signUp(credentials) }
                },
                authenticate: { credentials throws(AppError) in
                    try await AppError.doing("signing in failed") { () async throws(AppError) in try await backend.authenticate(credentials) }
                },
                signOut: { token throws(AppError) in
                    try await AppError.doing("signing out failed") { () async throws(AppError) in
                        try await backend.offCaller { () throws(AppError) in try backend.signOut(token) }
                    }
                }
            ),
            // Every call waits for its work off the caller's thread (see `offCaller`), but a
            // one-note write, made at once where it can be (see `soon`).
            profile: ProfileClient(
                load: { token throws(AppError) in try await backend.offCaller { () throws(AppError) in try backend.profile(token) } },
                loadPosts: { token throws(AppError) in try await backend.offCaller { () throws(AppError) in try backend.posts(token) } },
                addPost: { token, text throws(AppError) in
                    try await backend.offCaller { () throws(AppError) in try backend.addPost(token, text: text) }
                }
            ),
            notes: NotesClient(
                list: { token throws(AppError) in try await backend.offCaller { () throws(AppError) in try backend.notes(token) } },
                create: { token, note throws(AppError) in try await backend.soon { access throws(AppError) in try backend.create(token, note, access) } },
                update: { token, note throws(AppError) in try await backend.soon { access throws(AppError) in try backend.update(token, note, access) } },
                delete: { token, note throws(AppError) in try await backend.soon { access throws(AppError) in try backend.delete(token, note, access) } },
                search: { token, query throws(AppError) in
                    try await backend.offCaller { () throws(AppError) in try backend.notes(token, matching: query) }
                },
                changes: { token, since throws(AppError) in
                    try await backend.offCaller { () throws(AppError) in try backend.changes(token, since: since) }
                },
                externalWrites: { backend.externalWrites() },
                page: { token, query, after, limit throws(AppError) in
                    try await backend.offCaller { () throws(AppError) in try backend.page(token, matching: query, after: after, limit: limit) }
                }
            ),
            clock: clock,
            uuid: uuid,
            now: now
        )
    }
}

extension AppError {
    /// `body`'s result; a storage failure names `what` failed before the store's reason.
    static func doing<T: Sendable>(_ what: String, _ body: () async throws(AppError) -> T) async throws(AppError) -> T {
        do {
            return try await body()
        } catch .storage(let reason) {
            throw .storage(reason: "\(what): \(reason)")
        }
    }
}
