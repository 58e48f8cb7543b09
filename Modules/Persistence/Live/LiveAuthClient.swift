import AppEnvironment
import Foundation
import Models

/// The auth client's rules: accounts with salted PBKDF2 hashes, sign-in throttling, hashed
/// expiring tokens.
extension LiveBackend {

    /// A new account. The hash is computed on the hashing queue and the account written on the
    /// database's, so the caller's thread waits for neither.
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
                throw .storage(reason: error.description)
            }
            return user
        }
    }

    /// What signing in checks a password against.
    private struct Account: Sendable { let user: User; let hash: [UInt8]; let salt: [UInt8]; let iterations: Int; let failures: Int }

    /// A session for the account `credentials` name, if the password is its: the account is
    /// read and the session written on the database's queue, the candidate hashed on the
    /// hashing queue, with the throttle's wait (on the injected clock) in between.
    func authenticate(_ credentials: Credentials) async throws(AppError) -> AuthSession {
        let account = try await offCaller { () throws(AppError) in try self.account(named: credentials.username) }
        if let account, account.failures >= configuration.freeAttempts {
            // Each failure beyond the free ones doubles the wait, on the injected clock.
            let delay = configuration.throttleDelay(afterFailures: account.failures)
            do { try await clock.sleep(for: delay) } catch { throw .cancelled }
        }
        // An unknown user costs a hash too, so timing does not tell which part was wrong.
        let salt = account?.salt ?? Array(repeating: 0, count: 16)
        let iterations = account?.iterations ?? configuration.passwordIterations
        let candidate = try await hashing { () throws(AppError) in
            try self.storage { () throws(DatabaseError) in
                try Crypto.pbkdf2(password: credentials.password.revealed, salt: salt, iterations: iterations)
            }
        }
        return try await offCaller { () throws(AppError) in try self.openSession(for: account, ifItsHashIs: candidate) }
    }

    private func account(named username: Username) throws(AppError) -> Account? {
        try storage { () throws(DatabaseError) in
            try database.read { db throws(DatabaseError) in
                try db.query(
                    """
                    SELECT id, username, display_name, bio, password_hash, salt, iterations, failed_attempts
                    FROM accounts WHERE username_key = ?
                    """, [.text(username.normalized)]
                ) { row throws(DatabaseError) in
                    Account(
                        user: User(
                            id: try Self.id(row, 0, "accounts.id"), username: Username(row.text(1)),
                            displayName: row.text(2), bio: row.text(3)),
                        hash: row.blob(4), salt: row.blob(5), iterations: row.int(6), failures: row.int(7))
                }.first
            }
        }
    }

    /// A new session for `account` when `candidate` is its hash; otherwise its failure counted.
    private func openSession(for account: Account?, ifItsHashIs candidate: [UInt8]) throws(AppError) -> AuthSession {
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
                try db.execute(
                    "INSERT INTO sessions (token_hash, user_id, expires_at) VALUES (?, ?, ?)",
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

    func hash(_ token: AccessToken) throws(AppError) -> [UInt8] {
        try storage { () throws(DatabaseError) in try Crypto.sha256(Array(token.revealed.utf8)) }
    }
}
