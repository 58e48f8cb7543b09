import Foundation
import Models
import Synchronization

/// The data behind the in-memory clients.
public final class InMemoryBackend: Sendable {
    private struct Account {
        var user: User
        var password: Password
    }

    private struct Storage {
        var accounts: [User.ID: Account] = [:]
        var idsByUsername: [String: User.ID] = [:]
        var sessions: [String: (owner: User.ID, expiresAt: Date)] = [:]
        var posts: [Post] = []
        var notes: [User.ID: [Note.ID: Note]] = [:]
        /// Each owner's count of note changes, and where each note and removal stands in it.
        var noteChanges: [User.ID: NoteChangeLog] = [:]
        /// Who hears about writes, by the writer (client) they belong to.
        var writeListeners: [UInt64: (writer: UInt64, continuation: AsyncStream<Void>.Continuation)] = [:]
        var nextListener: UInt64 = 0
        /// Each writer's (client's) own runs of note writes, which are not conflicts.
        var versions: [UInt64: NoteVersions] = [:]
    }

    private struct NoteChangeLog {
        var count: Int64 = 0
        var changedAt: [Note.ID: Int64] = [:]
        var removedAt: [Note.ID: Int64] = [:]

        /// Numbers a change of note `id`; the number is the note's new version.
        mutating func changed(_ id: Note.ID) -> Int64 {
            count += 1
            changedAt[id] = count
            removedAt[id] = nil
            return count
        }

        mutating func removed(_ id: Note.ID) {
            count += 1
            changedAt[id] = nil
            removedAt[id] = count
        }
    }

    private let storage = Mutex(Storage())
    private let uuid: UUIDGenerator
    private let now: DateGenerator
    private let sessionLifetime: TimeInterval

    /// A backend with no accounts that takes ids from `uuid` and dates from `now`, whose sessions
    /// last `sessionLifetime` seconds (30 days, as the live clients').
    public init(uuid: UUIDGenerator = .incrementing(), now: DateGenerator = .live, sessionLifetime: TimeInterval = 30 * 24 * 3600) {
        self.uuid = uuid
        self.now = now
        self.sessionLifetime = sessionLifetime
    }

    // MARK: - Auth

    /// Creates an account.
    public func signUp(_ credentials: Credentials) throws(AppError) -> User {
        if let problem = credentials.problem { throw .invalidInput(reason: problem) }
        let user = User(id: User.ID(uuid()), username: credentials.username)
        try storage.withLock { storage throws(AppError) in
            let key = credentials.username.normalized
            guard storage.idsByUsername[key] == nil else { throw .usernameTaken(credentials.username) }
            storage.idsByUsername[key] = user.id
            storage.accounts[user.id] = Account(user: user, password: credentials.password)
        }
        return user
    }

    /// Opens a session for matching credentials.
    public func authenticate(_ credentials: Credentials) throws(AppError) -> AuthSession {
        let token = AccessToken("memory-" + uuid().uuidString.lowercased())
        return try storage.withLock { storage throws(AppError) in
            guard let id = storage.idsByUsername[credentials.username.normalized],
                let account = storage.accounts[id],
                account.password == credentials.password
            else { throw .invalidCredentials }
            let expiresAt = now().addingTimeInterval(sessionLifetime)
            storage.sessions[token.revealed] = (id, expiresAt)
            return AuthSession(user: account.user, token: token, expiresAt: expiresAt)
        }
    }

    /// Ends a session; unknown tokens are ignored.
    public func signOut(_ token: AccessToken) {
        _ = storage.withLock { $0.sessions.removeValue(forKey: token.revealed) }
    }

    // MARK: - Profile and posts

    /// The profile of the token's owner.
    public func profile(_ token: AccessToken) throws(AppError) -> User {
        try storage.withLock { storage throws(AppError) in
            let id = try owner(of: token, in: storage)
            guard let account = storage.accounts[id] else { throw .notFound(.user, id: id.description) }
            return account.user
        }
    }

    /// The token owner's posts, newest first.
    public func posts(_ token: AccessToken) throws(AppError) -> [Post] {
        try storage.withLock { storage throws(AppError) in
            let id = try owner(of: token, in: storage)
            return storage.posts.filter { $0.authorID == id }.reversed()
        }
    }

    /// Publishes a post for the token's owner.
    public func addPost(_ token: AccessToken, text: String) throws(AppError) -> Post {
        if let problem = Post.problem(with: text) { throw .invalidInput(reason: problem) }
        let postID = Post.ID(uuid())
        let createdAt = now()
        return try storage.withLock { storage throws(AppError) in
            let id = try owner(of: token, in: storage)
            let post = Post(id: postID, authorID: id, text: text, createdAt: createdAt)
            storage.posts.append(post)
            return post
        }
    }

    // MARK: - Notes

    /// The token owner's notes, most recently updated first.
    public func notes(_ token: AccessToken, matching query: String = "") throws(AppError) -> [Note] {
        try storage.withLock { storage throws(AppError) in
            let id = try owner(of: token, in: storage)
            return (storage.notes[id] ?? [:]).values
                .filter { $0.matches(query) }
                .sorted { $0.isListed(before: $1) }
        }
    }

    /// Stores `note` for the token's owner, replacing one with the same id.
    public func create(_ token: AccessToken, _ note: Note) throws(AppError) -> Note {
        try create(token, note, by: 0)
    }

    /// Replaces an existing note of the token's owner, based on `note.version` (see
    /// `NotesClient.update`); returns it as stored.
    public func update(_ token: AccessToken, _ note: Note) throws(AppError) -> Note {
        try update(token, note, by: 0)
    }

    /// Deletes a note of the token's owner, based on `note.version` (see `NotesClient.delete`).
    public func delete(_ token: AccessToken, _ note: Note) throws(AppError) {
        try delete(token, note, by: 0)
    }

    func create(_ token: AccessToken, _ note: Note, by writer: UInt64) throws(AppError) -> Note {
        try storage.withLock { storage throws(AppError) in
            let id = try owner(of: token, in: storage)
            return Self.store(note, replacing: storage.notes[id]?[note.id], for: id, by: writer, in: &storage)
        }
    }

    func update(_ token: AccessToken, _ note: Note, by writer: UInt64) throws(AppError) -> Note {
        try storage.withLock { storage throws(AppError) in
            let id = try owner(of: token, in: storage)
            let existing = storage.notes[id]?[note.id]
            guard storage.versions[writer, default: NoteVersions()].allows(note.id, base: note.version, stored: existing?.version) else {
                // No note: a deletion on record is a conflict; an id never the user's is not found.
                guard existing != nil || storage.noteChanges[id]?.removedAt[note.id] != nil else {
                    throw .notFound(.note, id: note.id.description)
                }
                throw NoteVersions.conflict(note.id, stored: existing)
            }
            guard let existing else { throw .notFound(.note, id: note.id.description) }
            var updated = note
            updated.createdAt = existing.createdAt
            return Self.store(updated, replacing: existing, for: id, by: writer, in: &storage)
        }
    }

    func delete(_ token: AccessToken, _ note: Note, by writer: UInt64) throws(AppError) {
        try storage.withLock { storage throws(AppError) in
            let id = try owner(of: token, in: storage)
            // Gone already: what the delete asked for is so.
            guard let existing = storage.notes[id]?[note.id] else { return }
            guard storage.versions[writer, default: NoteVersions()].allows(note.id, base: note.version, stored: existing.version) else {
                throw NoteVersions.conflict(note.id, stored: existing)
            }
            storage.notes[id]?[note.id] = nil
            storage.noteChanges[id, default: NoteChangeLog()].removed(note.id)
            storage.versions[writer, default: NoteVersions()].record(note.id, replaced: existing.version, wrote: nil)
        }
    }

    /// Stores `note` for `owner` as its next version, replacing `existing`, written by `writer`.
    private static func store(_ note: Note, replacing existing: Note?, for owner: User.ID, by writer: UInt64, in storage: inout Storage) -> Note {
        var stored = note
        stored.version = storage.noteChanges[owner, default: NoteChangeLog()].changed(note.id)
        storage.notes[owner, default: [:]][note.id] = stored
        storage.versions[writer, default: NoteVersions()].record(note.id, replaced: existing?.version, wrote: stored.version)
        return stored
    }

    /// What changed in the token owner's notes since `cursor` (with `nil`: nothing, and the
    /// cursor of now).
    public func noteChanges(_ token: AccessToken, since cursor: NotesCursor?) throws(AppError) -> NoteChanges {
        try storage.withLock { storage throws(AppError) in
            let id = try owner(of: token, in: storage)
            let log = storage.noteChanges[id] ?? NoteChangeLog()
            let now = NotesCursor(position: log.count)
            let notes = storage.notes[id] ?? [:]
            guard let cursor, cursor < now else { return NoteChanges(cursor: now, total: notes.count) }
            return NoteChanges(
                changed: log.changedAt.filter { $0.value > cursor.position }.compactMap { notes[$0.key] }.sorted { $0.isListed(before: $1) },
                removed: log.removedAt.filter { $0.value > cursor.position }.map(\.key).sorted(),
                cursor: now, total: notes.count)
        }
    }

    /// Wakes the iterator whenever a client other than `writer` (see ``NotesClient/inMemory(_:)``)
    /// writes a note: how two environments sharing this backend hear of each other's writes.
    func writes(otherThan writer: UInt64) -> AsyncStream<Void> {
        AsyncStream(bufferingPolicy: .bufferingNewest(1)) { continuation in
            let key = storage.withLock { storage in
                storage.nextListener += 1
                storage.writeListeners[storage.nextListener] = (writer, continuation)
                return storage.nextListener
            }
            continuation.onTermination = { [weak self] _ in
                _ = self?.storage.withLock { $0.writeListeners.removeValue(forKey: key) }
            }
        }
    }

    /// Tells the listeners of every writer but `writer` that notes were written.
    func announceWrite(by writer: UInt64) {
        let listeners = storage.withLock { $0.writeListeners.values.filter { $0.writer != writer } }
        for listener in listeners { listener.continuation.yield() }
    }

    fileprivate func newWriter() -> UInt64 {
        storage.withLock { storage in
            storage.nextListener += 1
            return storage.nextListener
        }
    }

    // MARK: - Rules

    private func owner(of token: AccessToken, in storage: Storage) throws(AppError) -> User.ID {
        guard let session = storage.sessions[token.revealed], session.expiresAt > now() else { throw .sessionExpired }
        return session.owner
    }
}

extension AuthClient {
    /// Auth backed by `backend`.
    public static func inMemory(_ backend: InMemoryBackend) -> AuthClient {
        AuthClient(
            signUp: { credentials throws(AppError) in try backend.signUp(credentials) },
            authenticate: { credentials throws(AppError) in try backend.authenticate(credentials) },
            signOut: { token in backend.signOut(token) }
        )
    }
}

extension ProfileClient {
    /// Profiles and posts backed by `backend`.
    public static func inMemory(_ backend: InMemoryBackend) -> ProfileClient {
        ProfileClient(
            load: { token throws(AppError) in try backend.profile(token) },
            loadPosts: { token throws(AppError) in try backend.posts(token) },
            addPost: { token, text throws(AppError) in try backend.addPost(token, text: text) }
        )
    }
}

extension NotesClient {
    /// Notes backed by `backend`.
    public static func inMemory(_ backend: InMemoryBackend) -> NotesClient {
        let writer = backend.newWriter()
        return NotesClient(
            list: { token throws(AppError) in try backend.notes(token) },
            create: { token, note throws(AppError) in
                defer { backend.announceWrite(by: writer) }
                return try backend.create(token, note, by: writer)
            },
            update: { token, note throws(AppError) in
                defer { backend.announceWrite(by: writer) }
                return try backend.update(token, note, by: writer)
            },
            delete: { token, note throws(AppError) in
                defer { backend.announceWrite(by: writer) }
                try backend.delete(token, note, by: writer)
            },
            search: { token, query throws(AppError) in try backend.notes(token, matching: query) },
            changes: { token, since throws(AppError) in try backend.noteChanges(token, since: since) },
            externalWrites: { backend.writes(otherThan: writer) }
        )
    }
}
