import AppEnvironment
import Foundation
import Models

/// The auth client's rules: salted PBKDF2 hashes, sign-in throttling, expiring tokens.
extension LiveBackend {

    func signUp(_ credentials: Credentials) async throws(AppError) -> User {
        if let problem = credentials.problem { throw .invalidInput(reason: problem) }
        let iterations = configuration.passwordIterations
        let (salt, hash) = try await hashing { () throws(AppError) in
            let salt = try self.storage { () throws(DatabaseError) in try Crypto.randomBytes(16) }
            let hash = try self.storage { () throws(DatabaseError) in
                try Crypto.pbkdf2(password: credentials.password.revealed, salt: salt, iterations: iterations)
            }
            return (salt, hash)
        }
        return try await offCaller { () throws(AppError) in
            let user = User(id: User.ID(self.uuid()), username: credentials.username)
            do throws(DatabaseError) {
                try self.database.write { db throws(DatabaseError) in
                    try db.execute(
                        """
                        INSERT INTO accounts (id, username, username_key, display_name, bio, password_hash, salt, iterations, created_at)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                        [
                            .text(user.id.description), .text(user.username.rawValue), .text(user.username.normalized),
                            .text(user.displayName), .text(user.bio), .blob(hash), .blob(salt), .int(iterations),
                            .real(self.now().timeIntervalSinceReferenceDate),
                        ])
                }
            } catch  where error.kind == .constraint {
                throw .usernameTaken(credentials.username)
            } catch {
                throw .storage(reason: error.reason)
            }
            return user
        }
    }

    /// What signing in checks a password against.
    private struct Account: Sendable { let user: User; let hash: [UInt8]; let salt: [UInt8]; let iterations: Int }

    /// A session for the account `credentials` name, if the password is its: throttled, read and
    /// written on the database's queue, hashed on the hashing queue.
    func authenticate(_ credentials: Credentials) async throws(AppError) -> AuthSession {
        let username = credentials.username
        let account = try await offCaller { () throws(AppError) in
            try self.letSignInAttempt(for: username)
            return try self.account(named: username)
        }
        let salt = account?.salt ?? Array(repeating: 0, count: 16)
        let iterations = account?.iterations ?? configuration.passwordIterations
        let candidate = try await hashing { () throws(AppError) in
            try self.storage { () throws(DatabaseError) in
                try Crypto.pbkdf2(password: credentials.password.revealed, salt: salt, iterations: iterations)
            }
        }
        let session = try await offCaller { () throws(AppError) in try self.openSession(for: account, named: username, ifItsHashIs: candidate) }
        // Notes imported or written while nothing indexed them are indexed from now, not only
        // once a search has had to scan them.
        searchIndex.catchUp()
        return session
    }

    /// Counts one more attempt against `username` and spaces the next by the throttle; refuses at
    /// once, saying how long to wait, while an earlier attempt's spacing runs.
    private func letSignInAttempt(for username: Username) throws(AppError) {
        let key: SQLValue = .text(username.normalized)
        let now = now().timeIntervalSinceReferenceDate
        let forgottenBefore = now - configuration.failureMemory
        let wait = try storage { () throws(DatabaseError) -> TimeInterval? in
            try database.write { db throws(DatabaseError) -> TimeInterval? in
                // Counts older than the memory start again; rows that old go (an index seek).
                try db.execute("DELETE FROM sign_in_failures WHERE last_failed_at < ?", [.real(forgottenBefore)])
                let earlier = try db.query("SELECT failures, next_attempt_at FROM sign_in_failures WHERE username_key = ?", [key]) {
                    ($0.int(0), $0.double(1))
                }.first
                if let earlier, now < earlier.1 { return earlier.1 - now }
                let attempts = (earlier?.0 ?? 0) + 1
                let spacing = attempts >= configuration.freeAttempts ? configuration.throttleDelay(afterFailures: attempts) : .zero
                let next = now + Double(spacing.components.seconds) + Double(spacing.components.attoseconds) / 1e18
                try db.execute(
                    """
                    INSERT INTO sign_in_failures (username_key, failures, last_failed_at, next_attempt_at) VALUES (?1, ?2, ?3, ?4)
                    ON CONFLICT (username_key) DO UPDATE SET failures = ?2, last_failed_at = ?3, next_attempt_at = ?4
                    """, [key, .int(attempts), .real(now), .real(next)])
                return nil
            }
        }
        if let wait { throw .tooManySignInAttempts(retryAfter: max(1, Int(wait.rounded(.up)))) }
    }

    private func account(named username: Username) throws(AppError) -> Account? {
        try storage { () throws(DatabaseError) in
            try database.read { db throws(DatabaseError) in
                try db.query(
                    """
                    SELECT id, username, display_name, bio, password_hash, salt, iterations
                    FROM accounts WHERE username_key = ?
                    """, [.text(username.normalized)]
                ) { row throws(DatabaseError) in
                    Account(
                        user: User(
                            id: try Self.id(row, 0, "accounts.id"), username: Username(row.text(1)),
                            displayName: row.text(2), bio: row.text(3)),
                        hash: row.blob(4), salt: row.blob(5), iterations: row.int(6))
                }.first
            }
        }
    }

    /// A new session for `account` when `candidate` is its hash (the attempt's count goes);
    /// otherwise the failure stands as counted when the attempt was let in.
    private func openSession(for account: Account?, named username: Username, ifItsHashIs candidate: [UInt8]) throws(AppError) -> AuthSession {
        let key: SQLValue = .text(username.normalized)
        let now = now().timeIntervalSinceReferenceDate
        guard let account, Crypto.constantTimeEquals(candidate, account.hash) else { throw .invalidCredentials }
        let tokenBytes = try storage { () throws(DatabaseError) in try Crypto.randomBytes(32) }
        let token = AccessToken(Crypto.hex(tokenBytes))
        let tokenHash = try storage { () throws(DatabaseError) in try Crypto.sha256(Array(token.revealed.utf8)) }
        try storage { () throws(DatabaseError) in
            try database.write { db throws(DatabaseError) in
                try db.execute("DELETE FROM sign_in_failures WHERE username_key = ?", [key])
                // Sessions that expired are of no use to anyone: they go as new ones open.
                try db.execute("DELETE FROM sessions WHERE expires_at <= ?", [.real(now)])
                try db.execute(
                    "INSERT INTO sessions (token_hash, user_id, expires_at) VALUES (?, ?, ?)",
                    [.blob(tokenHash), .text(account.user.id.description), .real(now + configuration.tokenLifetime)])
            }
        }
        return AuthSession(user: account.user, token: token, expiresAt: Date(timeIntervalSinceReferenceDate: now + configuration.tokenLifetime))
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

    func hash(_ token: AccessToken) throws(AppError) -> [UInt8] {
        try storage { () throws(DatabaseError) in try Crypto.sha256(Array(token.revealed.utf8)) }
    }
}
