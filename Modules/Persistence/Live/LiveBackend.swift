import AppEnvironment
import Foundation
import Models

/// The live clients' rules on a ``Database``: accounts with salted PBKDF2 hashes, hashed
/// expiring tokens, profiles, posts and notes.
final class LiveBackend: Sendable {
    let database: Database
    let configuration: LiveConfiguration
    let clock: any Clock<Duration>
    let uuid: UUIDGenerator
    let now: DateGenerator

    init(database: Database, configuration: LiveConfiguration, clock: any Clock<Duration>, uuid: UUIDGenerator, now: DateGenerator) {
        self.database = database
        self.configuration = configuration
        self.clock = clock
        self.uuid = uuid
        self.now = now
    }

    // MARK: - Accounts

    func signUp(_ credentials: Credentials) throws(AppError) -> User {
        if let problem = credentials.problem { throw .invalidInput(reason: problem) }
        let salt = try storage { () throws(DatabaseError) in try Crypto.randomBytes(16) }
        let iterations = configuration.passwordIterations
        let hash = try storage { () throws(DatabaseError) in
            try Crypto.pbkdf2(password: credentials.password.revealed, salt: salt, iterations: iterations)
        }
        let user = User(id: User.ID(uuid()), username: credentials.username)
        do {
            try database.write { db throws(DatabaseError) in
                try db.execute("""
                    INSERT INTO accounts (id, username, username_key, display_name, bio, password_hash, salt, iterations, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, [.text(user.id.description), .text(user.username.rawValue), .text(user.username.normalized),
                          .text(user.displayName), .text(user.bio), .blob(hash), .blob(salt), .int(iterations), .real(now().timeIntervalSinceReferenceDate)])
            }
        } catch where error.kind == .constraint {
            throw .usernameTaken(credentials.username)
        } catch {
            throw .storage(reason: error.description)
        }
        return user
    }

    func authenticate(_ credentials: Credentials) async throws(AppError) -> AuthSession {
        struct Account { let user: User; let hash: [UInt8]; let salt: [UInt8]; let iterations: Int; let failures: Int }
        let account = try storage { () throws(DatabaseError) in
            try database.read { db throws(DatabaseError) in
                try db.query("""
                    SELECT id, username, display_name, bio, password_hash, salt, iterations, failed_attempts
                    FROM accounts WHERE username_key = ?
                    """, [.text(credentials.username.normalized)]) { row in
                    Account(
                        user: User(id: User.ID(row.text(0)) ?? User.ID(UUID(sequence: 0)), username: Username(row.text(1)),
                                   displayName: row.text(2), bio: row.text(3)),
                        hash: row.blob(4), salt: row.blob(5), iterations: row.int(6), failures: row.int(7))
                }.first
            }
        }
        if let account, account.failures >= configuration.freeAttempts {
            // Each failure beyond the free ones doubles the wait, on the injected clock.
            let delay = configuration.throttleDelay(afterFailures: account.failures)
            do { try await clock.sleep(for: delay) } catch { throw .cancelled }
        }
        // An unknown user costs a hash too, so timing does not tell which part was wrong.
        let salt = account?.salt ?? Array(repeating: 0, count: 16)
        let iterations = account?.iterations ?? configuration.passwordIterations
        let candidate = try storage { () throws(DatabaseError) in
            try Crypto.pbkdf2(password: credentials.password.revealed, salt: salt, iterations: iterations)
        }
        guard let account, Crypto.constantTimeEquals(candidate, account.hash) else {
            if let account {
                try storage { () throws(DatabaseError) in
                    try database.write { db throws(DatabaseError) in
                        try db.execute("UPDATE accounts SET failed_attempts = failed_attempts + 1 WHERE id = ?", [.text(account.user.id.description)])
                    }
                }
            }
            throw .invalidCredentials
        }
        let tokenBytes = try storage { () throws(DatabaseError) in try Crypto.randomBytes(32) }
        let token = AccessToken(Crypto.hex(tokenBytes))
        let tokenHash = try storage { () throws(DatabaseError) in try Crypto.sha256(Array(token.revealed.utf8)) }
        let expiresAt = now().addingTimeInterval(configuration.tokenLifetime)
        try storage { () throws(DatabaseError) in
            try database.write { db throws(DatabaseError) in
                try db.execute("UPDATE accounts SET failed_attempts = 0 WHERE id = ?", [.text(account.user.id.description)])
                try db.execute("INSERT INTO sessions (token_hash, user_id, expires_at) VALUES (?, ?, ?)",
                    [.blob(tokenHash), .text(account.user.id.description), .real(expiresAt.timeIntervalSinceReferenceDate)])
            }
        }
        return AuthSession(user: account.user, token: token)
    }

    func signOut(_ token: AccessToken) throws(AppError) {
        let tokenHash = try hash(token)
        try storage { () throws(DatabaseError) in
            try database.write { db throws(DatabaseError) in
                try db.execute("DELETE FROM sessions WHERE token_hash = ?", [.blob(tokenHash)])
            }
        }
    }

    /// The user a valid, unexpired token belongs to.
    func owner(of token: AccessToken, in db: Connection) throws(AppError) -> User.ID {
        let tokenHash = try hash(token)
        let rows = try storage { () throws(DatabaseError) in
            try db.query("SELECT user_id, expires_at FROM sessions WHERE token_hash = ?", [.blob(tokenHash)]) { row in
                (row.text(0), row.double(1))
            }
        }
        guard let (id, expiresAt) = rows.first, expiresAt > now().timeIntervalSinceReferenceDate, let userID = User.ID(id) else {
            throw .sessionExpired
        }
        return userID
    }

    private func hash(_ token: AccessToken) throws(AppError) -> [UInt8] {
        try storage { () throws(DatabaseError) in try Crypto.sha256(Array(token.revealed.utf8)) }
    }

    // MARK: - Profile and posts

    func profile(_ token: AccessToken) throws(AppError) -> User {
        try reading(token) { db, owner throws(AppError) in
            let users = try storage { () throws(DatabaseError) in
                try db.query("SELECT username, display_name, bio FROM accounts WHERE id = ?", [.text(owner.description)]) { row in
                    User(id: owner, username: Username(row.text(0)), displayName: row.text(1), bio: row.text(2))
                }
            }
            guard let user = users.first else { throw .notFound(.user, id: owner.description) }
            return user
        }
    }

    func posts(_ token: AccessToken) throws(AppError) -> [Post] {
        try reading(token) { db, owner throws(AppError) in
            try storage { () throws(DatabaseError) in
                try db.query("SELECT id, text, created_at FROM posts WHERE author_id = ? ORDER BY sequence DESC",
                             [.text(owner.description)]) { row in
                    Post(id: Post.ID(row.text(0)) ?? Post.ID(UUID(sequence: 0)), authorID: owner, text: row.text(1),
                         createdAt: Date(timeIntervalSinceReferenceDate: row.double(2)))
                }
            }
        }
    }

    func addPost(_ token: AccessToken, text: String) throws(AppError) -> Post {
        if let problem = Post.problem(with: text) { throw .invalidInput(reason: problem) }
        let id = Post.ID(uuid())
        let createdAt = now()
        return try writing(token) { db, owner throws(AppError) in
            try storage { () throws(DatabaseError) in
                try db.execute("""
                    INSERT INTO posts (id, author_id, text, created_at, sequence)
                    VALUES (?, ?, ?, ?, (SELECT coalesce(max(sequence), 0) + 1 FROM posts WHERE author_id = ?))
                    """, [.text(id.description), .text(owner.description), .text(text),
                          .real(createdAt.timeIntervalSinceReferenceDate), .text(owner.description)])
            }
            return Post(id: id, authorID: owner, text: text, createdAt: createdAt)
        }
    }

    // MARK: - Notes

    func notes(_ token: AccessToken, matching query: String = "") throws(AppError) -> [Note] {
        let words = query.split(whereSeparator: \.isWhitespace).map(String.init)
        if words.contains(where: { $0.count >= 3 }) { try refreshSearchIndex() }
        return try reading(token) { db, owner throws(AppError) in
            let (conditions, bindings) = try storage { () throws(DatabaseError) in
                try Self.searchConditions(words, fullText: db.tableExists("notes_search"))
            }
            return try storage { () throws(DatabaseError) in
                try db.query("SELECT id, text, created_at, updated_at FROM notes WHERE owner_id = ?\(conditions) ORDER BY updated_at DESC, id DESC",
                             [.text(owner.description)] + bindings) { row in
                    Note(id: Note.ID(row.text(0)) ?? Note.ID(UUID(sequence: 0)), text: row.text(1),
                         createdAt: Date(timeIntervalSinceReferenceDate: row.double(2)),
                         updatedAt: Date(timeIntervalSinceReferenceDate: row.double(3)))
                }
            }
        }
    }

    func create(_ token: AccessToken, _ note: Note) throws(AppError) -> Note {
        try writing(token) { db, owner throws(AppError) in
            try storage { () throws(DatabaseError) in
                try db.execute("""
                    INSERT INTO notes (id, owner_id, text, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (id) DO UPDATE SET text = excluded.text, updated_at = excluded.updated_at, search_indexed = 0
                    WHERE notes.owner_id = excluded.owner_id
                    """, [.text(note.id.description), .text(owner.description), .text(note.text),
                          .real(note.createdAt.timeIntervalSinceReferenceDate), .real(note.updatedAt.timeIntervalSinceReferenceDate)])
            }
            guard db.changes == 1 else { throw .notFound(.note, id: note.id.description) }
            return note
        }
    }

    func update(_ token: AccessToken, _ note: Note) throws(AppError) -> Note {
        try writing(token) { db, owner throws(AppError) in
            let created = try storage { () throws(DatabaseError) in
                try db.execute("UPDATE notes SET text = ?, updated_at = ?, search_indexed = 0 WHERE id = ? AND owner_id = ?",
                               [.text(note.text), .real(note.updatedAt.timeIntervalSinceReferenceDate), .text(note.id.description), .text(owner.description)])
                guard db.changes == 1 else { return Double?.none }
                return try db.query("SELECT created_at FROM notes WHERE id = ?", [.text(note.id.description)]) { $0.double(0) }.first
            }
            guard let created else { throw .notFound(.note, id: note.id.description) }
            var stored = note
            stored.createdAt = Date(timeIntervalSinceReferenceDate: created)
            return stored
        }
    }

    func delete(_ token: AccessToken, _ id: Note.ID) throws(AppError) {
        try writing(token) { db, owner throws(AppError) in
            try storage { () throws(DatabaseError) in
                try db.execute("DELETE FROM notes WHERE id = ? AND owner_id = ?", [.text(id.description), .text(owner.description)])
            }
            guard db.changes == 1 else { throw .notFound(.note, id: id.description) }
        }
    }

    // MARK: - Helpers

    /// Brings the full-text index up to date with the notes written since the last search, in one
    /// transaction (one index segment, however many notes changed).
    private func refreshSearchIndex() throws(AppError) {
        try storage { () throws(DatabaseError) in
            try database.write { db throws(DatabaseError) in
                guard try db.tableExists("notes_search") else { return }
                try db.execute("DELETE FROM notes_search WHERE rowid IN (SELECT rowid FROM notes WHERE search_indexed = 0)")
                try db.execute("INSERT INTO notes_search (rowid, text) SELECT rowid, text FROM notes WHERE search_indexed = 0")
                try db.execute("UPDATE notes SET search_indexed = 1 WHERE search_indexed = 0")
            }
        }
    }

    /// The SQL (with `?` only) and values that keep the notes containing every word: words of three
    /// characters or more through the trigram full-text index when there is one, the others (or
    /// all, without the index) through an escaped LIKE.
    static func searchConditions(_ words: [String], fullText: Bool) -> (String, [SQLValue]) {
        let indexed = fullText ? words.filter { $0.count >= 3 } : []
        let scanned = fullText ? words.filter { $0.count < 3 } : words
        var sql = ""
        var bindings: [SQLValue] = []
        if !indexed.isEmpty {
            sql += " AND rowid IN (SELECT rowid FROM notes_search WHERE notes_search MATCH ?)"
            // Each word as a quoted phrase (quotes doubled), so FTS5 syntax in it means nothing.
            bindings.append(.text(indexed.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }.joined(separator: " AND ")))
        }
        for word in scanned {
            sql += " AND text LIKE ? ESCAPE '\\'"
            bindings.append(.text(likePattern(word)))
        }
        return (sql, bindings)
    }

    /// `text` as a LIKE pattern matching it anywhere, with `\`, `%` and `_` taken literally.
    static func likePattern(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if character == "\\" || character == "%" || character == "_" { escaped.append("\\") }
            escaped.append(character)
        }
        return "%" + escaped + "%"
    }

    private func reading<T>(_ token: AccessToken, _ body: (Connection, User.ID) throws(AppError) -> T) throws(AppError) -> T {
        try inDatabase(write: false, token, body)
    }

    private func writing<T>(_ token: AccessToken, _ body: (Connection, User.ID) throws(AppError) -> T) throws(AppError) -> T {
        try inDatabase(write: true, token, body)
    }

    /// Runs `body` for the token's owner in one read or one transaction, carrying an `AppError`
    /// out through the database's typed errors.
    private func inDatabase<T>(write: Bool, _ token: AccessToken, _ body: (Connection, User.ID) throws(AppError) -> T) throws(AppError) -> T {
        var appError: AppError?
        do throws(DatabaseError) {
            if write {
                return try database.write { (db: Connection) throws(DatabaseError) -> T in
                    do throws(AppError) {
                        return try body(db, try owner(of: token, in: db))
                    } catch {
                        appError = error
                        throw DatabaseError(.other, operation: "abandon the transaction", message: error.message)
                    }
                }
            }
            return try database.read { (db: Connection) throws(DatabaseError) -> T in
                do throws(AppError) {
                    return try body(db, try owner(of: token, in: db))
                } catch {
                    appError = error
                    throw DatabaseError(.other, operation: "abandon the read", message: error.message)
                }
            }
        } catch {
            throw appError ?? .storage(reason: error.description)
        }
    }

    private func storage<T>(_ body: () throws(DatabaseError) -> T) throws(AppError) -> T {
        do { return try body() } catch { throw .storage(reason: error.description) }
    }
}

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

    /// The defaults: 600,000 PBKDF2 rounds (OWASP's advice for PBKDF2-HMAC-SHA256), 30-day
    /// tokens, 3 free attempts, then 1 s doubling up to 60 s.
    public init(
        passwordIterations: Int = 600_000,
        tokenLifetime: TimeInterval = 30 * 24 * 3600,
        freeAttempts: Int = 3,
        throttleBase: Duration = .seconds(1),
        throttleCap: Duration = .seconds(60)
    ) {
        self.passwordIterations = passwordIterations
        self.tokenLifetime = tokenLifetime
        self.freeAttempts = freeAttempts
        self.throttleBase = throttleBase
        self.throttleCap = throttleCap
    }

    /// Settings for tests: a low PBKDF2 count, so accounts are quick to create.
    public static let testing = LiveConfiguration(passwordIterations: 1_000)

    /// How long an attempt waits after `failures` failed ones.
    func throttleDelay(afterFailures failures: Int) -> Duration {
        let doublings = min(max(failures - freeAttempts, 0), 16)
        return min(throttleBase * (1 << doublings), throttleCap)
    }
}

extension AppEnvironment {
    /// The live clients, on `database`.
    public static func live(
        database: Database,
        configuration: LiveConfiguration = LiveConfiguration(),
        clock: any Clock<Duration> = ContinuousClock(),
        uuid: UUIDGenerator = .live,
        now: DateGenerator = .live
    ) -> AppEnvironment {
        let backend = LiveBackend(database: database, configuration: configuration, clock: clock, uuid: uuid, now: now)
        return AppEnvironment(
            auth: AuthClient(
                signUp: { credentials throws(AppError) in try backend.signUp(credentials) },
                authenticate: { credentials throws(AppError) in try await backend.authenticate(credentials) },
                signOut: { token throws(AppError) in try backend.signOut(token) }
            ),
            profile: ProfileClient(
                load: { token throws(AppError) in try backend.profile(token) },
                loadPosts: { token throws(AppError) in try backend.posts(token) },
                addPost: { token, text throws(AppError) in try backend.addPost(token, text: text) }
            ),
            notes: NotesClient(
                list: { token throws(AppError) in try backend.notes(token) },
                create: { token, note throws(AppError) in try backend.create(token, note) },
                update: { token, note throws(AppError) in try backend.update(token, note) },
                delete: { token, id throws(AppError) in try backend.delete(token, id) },
                search: { token, query throws(AppError) in try backend.notes(token, matching: query) }
            ),
            clock: clock,
            uuid: uuid,
            now: now
        )
    }
}
