import AppEnvironment
import Foundation
import Models
import Persistence
import StateStore
import StateStoreTesting
import TestSupport
import Testing

@Suite("Live clients")
struct LiveClientTests {
    let folder = TemporaryFolder()
    let clock = TestClock()
    let credentials = Credentials(username: "Alice.Liddell", password: "wonderland")

    func environment(_ database: Database? = nil, configuration: LiveConfiguration = .testing) throws -> AppEnvironment {
        let database = try database ?? Database(path: folder.file("app.sqlite"), migrations: AppSchema.migrations)
        return AppEnvironment.live(
            database: database, configuration: configuration, clock: clock,
            uuid: .incrementing(), now: .following(clock, from: Date(timeIntervalSince1970: 1_800_000_000)))
    }

    @Test func accountsStoreASaltedSlowHashAndNeverThePassword() async throws {
        let database = try Database(path: folder.file("app.sqlite"), migrations: AppSchema.migrations)
        let live = try environment(database)
        _ = try await live.auth.signUp(credentials)
        _ = try await live.auth.signUp(Credentials(username: "bob.builder", password: "wonderland"))
        let rows = try database.read { db throws(DatabaseError) in
            try db.query("SELECT password_hash, salt, iterations FROM accounts") { ($0.blob(0), $0.blob(1), $0.int(2)) }
        }
        #expect(rows.count == 2)
        #expect(rows[0].1 != rows[1].1, "each account has its own salt")
        #expect(rows[0].0 != rows[1].0, "so the same password hashes differently")
        #expect(rows.allSatisfy { $0.2 == 1_000 && $0.0.count == 32 })
        let file = try #require(contents(folder.file("app.sqlite")))
        let wal = contents(folder.file("app.sqlite-wal")) ?? Data()
        #expect(file.range(of: Data("wonderland".utf8)) == nil && wal.range(of: Data("wonderland".utf8)) == nil)
    }

    @Test func usernamesAreUniqueIgnoringCaseAndBadCredentialsAreExplained() async throws {
        let live = try environment()
        _ = try await live.auth.signUp(credentials)
        await #expect(throws: AppError.usernameTaken("alice.liddell")) {
            try await live.auth.signUp(Credentials(username: "alice.liddell", password: "something"))
        }
        await #expect(throws: AppError.invalidInput(reason: "A password needs at least 8 characters.")) {
            try await live.auth.signUp(Credentials(username: "carol.singer", password: "short"))
        }
    }

    @Test func hostileUsernamesAndPasswordsAreStoredAndCheckedAsTyped() async throws {
        let live = try environment()
        for username in ["O'Brien_100%\"--", "ünïcødé_👀_user", "Robert');DROP/**/TABLE/**/accounts;--"] {
            let hostile = Credentials(username: Username(username), password: Password("p'%_\"\\ 👀 \(username)"))
            let user = try await live.auth.signUp(hostile)
            #expect(user.username.rawValue == username)
            let session = try await live.auth.authenticate(hostile)
            #expect(try await live.profile.load(session.token).username.rawValue == username)
        }
        await #expect(throws: AppError.invalidCredentials) {
            try await live.auth.authenticate(Credentials(username: "O'Brien_100%\"--", password: "p'%_"))
        }
    }

    @Test func aWrongPasswordAndAnUnknownUserGetTheSameError() async throws {
        let live = try environment()
        _ = try await live.auth.signUp(credentials)
        await #expect(throws: AppError.invalidCredentials) {
            try await live.auth.authenticate(Credentials(username: "alice.liddell", password: "looking-glass"))
        }
        await #expect(throws: AppError.invalidCredentials) {
            try await live.auth.authenticate(Credentials(username: "nobody.here", password: "wonderland"))
        }
        let session = try await live.auth.authenticate(Credentials(username: "ALICE.LIDDELL", password: "wonderland"))
        #expect(session.user.username == "Alice.Liddell")
        #expect(session.token.revealed.count == 64, "256 random bits, in hex")
    }

    @Test func repeatedFailuresAreSpacedOnTheClockAndAThrottledAttemptIsAnsweredAtOnce() async throws {
        let live = try environment(configuration: LiveConfiguration(passwordIterations: 1_000, freeAttempts: 2, throttleBase: .seconds(2)))
        _ = try await live.auth.signUp(credentials)
        let wrong = Credentials(username: "alice.liddell", password: "not-the-one")
        for _ in 0..<2 {
            await #expect(throws: AppError.invalidCredentials) { try await live.auth.authenticate(wrong) }
        }
        // Refused at once, saying how long to wait, even with the right password: nothing sleeps.
        await #expect(throws: AppError.tooManySignInAttempts(retryAfter: 2)) { try await live.auth.authenticate(credentials) }
        #expect(clock.sleeperCount == 0)
        await clock.advance(by: .seconds(1))
        await #expect(throws: AppError.tooManySignInAttempts(retryAfter: 1)) { try await live.auth.authenticate(credentials) }
        await clock.advance(by: .seconds(1))
        _ = try await live.auth.authenticate(credentials)
        // Success resets the count.
        await #expect(throws: AppError.invalidCredentials) { try await live.auth.authenticate(wrong) }
    }

    @Test func aUsernameNoAccountHasIsThrottledAsAKnownOneIsAndCountsAreForgotten() async throws {
        let database = try Database(path: folder.file("app.sqlite"), migrations: AppSchema.migrations)
        let live = try environment(
            database, configuration: LiveConfiguration(passwordIterations: 1_000, freeAttempts: 2, throttleBase: .seconds(1), failureMemory: 3_600))
        _ = try await live.auth.signUp(credentials)
        for username in ["nobody.here", "alice.liddell"] {
            let wrong = Credentials(username: Username(username), password: "not-the-one")
            for _ in 0..<2 {
                await #expect(throws: AppError.invalidCredentials) { try await live.auth.authenticate(wrong) }
            }
            await #expect(throws: AppError.tooManySignInAttempts(retryAfter: 1), "\(username): whether the account exists or not") {
                try await live.auth.authenticate(wrong)
            }
        }
        let counted = { () throws -> [String] in
            try database.read { db throws(DatabaseError) in try db.query("SELECT username_key FROM sign_in_failures ORDER BY 1") { $0.text(0) } }
        }
        #expect(try counted() == ["alice.liddell", "nobody.here"])
        // An hour without a failure: the counts are forgotten, and their rows go with the next attempt.
        await clock.advance(by: .seconds(3_601))
        await #expect(throws: AppError.invalidCredentials) {
            try await live.auth.authenticate(Credentials(username: "someone.else", password: "guess"))
        }
        #expect(try counted() == ["someone.else"])
    }

    @Test func attemptsMadeAtOnceByManyProcessesAreSpacedToo() async throws {
        let path = folder.file("app.sqlite")
        let configuration = LiveConfiguration(passwordIterations: 1_000, freeAttempts: 1, throttleBase: .seconds(30))
        _ = try await environment(Database(path: path, migrations: AppSchema.migrations), configuration: configuration).auth.signUp(credentials)
        // Six connections to the file, as six processes: twelve guesses at once.
        let processes = try (0..<6).map { _ in try environment(Database(path: path, migrations: AppSchema.migrations), configuration: configuration) }
        let wrong = Credentials(username: "alice.liddell", password: "not-the-one")
        let outcomes = await withTaskGroup(of: AppError?.self) { group in
            for live in processes + processes {
                group.addTask {
                    do {
                        _ = try await live.auth.authenticate(wrong)
                        return nil
                    } catch {
                        return error as? AppError
                    }
                }
            }
            return await group.reduce(into: [AppError?]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 == .invalidCredentials }.count == 1, "only one guess is checked; \(outcomes)")
        #expect(outcomes.filter { $0 == .tooManySignInAttempts(retryAfter: 30) }.count == 11, "\(outcomes)")
        // The owner is told to wait as long as the spacing says, and is let in after it.
        await #expect(throws: AppError.tooManySignInAttempts(retryAfter: 30)) { try await processes[0].auth.authenticate(credentials) }
        await clock.advance(by: .seconds(30))
        _ = try await processes[0].auth.authenticate(credentials)
    }

    @Test func version14KeysUsernamesComposedAndTheOlderOfTwoAccountsKeepsTheName() async throws {
        let path = folder.file("v13.sqlite")
        let old = try Database(path: path, migrations: Array(AppSchema.migrations.prefix(13)))
        let live = try environment(old)
        _ = try await live.auth.signUp(Credentials(username: "older.account", password: "wonderland"))
        await clock.advance(by: .seconds(1))
        _ = try await live.auth.signUp(Credentials(username: "younger.account", password: "looking-glass"))
        // Before version 14 a name typed decomposed and composed were two accounts.
        try old.write { db throws(DatabaseError) in
            for (old, typed) in [("older.account", "Jose\u{301}.Garcia"), ("younger.account", "Jos\u{E9}.Garcia")] {
                try db.execute(
                    "UPDATE accounts SET username = ?, username_key = ? WHERE username = ?", [.text(typed), .text(typed.lowercased()), .text(old)])
            }
        }
        old.close()
        let migrated = try environment(Database(path: path, migrations: AppSchema.migrations))
        for typed in ["Jos\u{E9}.Garcia", "JOSE\u{301}.GARCIA"] {
            let session = try await migrated.auth.authenticate(Credentials(username: Username(typed), password: "wonderland"))
            #expect(session.user.username.rawValue == "Jose\u{301}.Garcia", "the older account keeps the name")
        }
        await #expect(throws: AppError.usernameTaken(Username("jos\u{E9}.garcia"))) {
            try await migrated.auth.signUp(Credentials(username: "jos\u{E9}.garcia", password: "wonderland"))
        }
    }

    @Test func aPagesCountFollowsEveryWriteAndVersion17CountsTheNotesThereBefore() async throws {
        let path = folder.file("v16.sqlite")
        let old = try Database(path: path, migrations: Array(AppSchema.migrations.prefix(16)))
        let before = try environment(old)
        _ = try await before.auth.signUp(credentials)
        _ = try await before.auth.signUp(Credentials(username: "bob.builder", password: "wonderland"))
        let oldToken = try await before.auth.authenticate(credentials).token
        for number in 1...3 {
            _ = try await before.notes.create(
                oldToken, Note(id: Note.ID(UUID(sequence: UInt64(number))), text: "old \(number)", createdAt: Date(timeIntervalSince1970: 1_800_000_000)))
        }
        old.close()
        let live = try environment(Database(path: path, migrations: AppSchema.migrations))
        let token = try await live.auth.authenticate(credentials).token
        #expect(try await live.notes.page(token, "", after: nil, limit: 1).total == 3, "counted when version 17 came")
        var notes: [Note] = []
        for number in 4...8 {
            notes.append(
                try await live.notes.create(
                    token, Note(id: Note.ID(UUID(sequence: UInt64(number))), text: "new \(number)", createdAt: Date(timeIntervalSince1970: 1_800_000_000))))
        }
        // Stored again (an upsert) and edited: no new note.
        _ = try await live.notes.create(token, notes[0])
        var edited = notes[1]
        edited.text = "edited"
        _ = try await live.notes.update(token, edited)
        try await live.notes.delete(token, notes[2])
        #expect(try await live.notes.page(token, "", after: nil, limit: 1).total == 7)
        #expect(try await live.notes.changes(token, nil).total == 7)
        // Another owner's notes are theirs.
        let bob = try await live.auth.authenticate(Credentials(username: "bob.builder", password: "wonderland")).token
        _ = try await live.notes.create(bob, Note(id: Note.ID(UUID(sequence: 1)), text: "bob's", createdAt: Date(timeIntervalSince1970: 1_800_000_000)))
        #expect(try await live.notes.page(bob, "", after: nil, limit: 1).total == 1)
        #expect(try await live.notes.page(token, "", after: nil, limit: 1).total == 7)
    }

    @Test func tokensAreStoredHashedAndExpireAndSignOutRevokesThem() async throws {
        let database = try Database(path: folder.file("app.sqlite"), migrations: AppSchema.migrations)
        let live = try environment(database, configuration: LiveConfiguration(passwordIterations: 1_000, tokenLifetime: 60))
        _ = try await live.auth.signUp(credentials)
        let session = try await live.auth.authenticate(credentials)
        #expect(session.expiresAt == Date(timeIntervalSince1970: 1_800_000_060), "the session says when it expires")
        let stored = try database.read { db throws(DatabaseError) in try db.query("SELECT token_hash FROM sessions") { $0.blob(0) } }
        #expect(stored.count == 1 && stored[0] != Array(session.token.revealed.utf8))
        #expect(try await live.profile.load(session.token).username == "Alice.Liddell")
        await clock.advance(by: .seconds(61))
        await #expect(throws: AppError.sessionExpired) { try await live.profile.load(session.token) }
        let fresh = try await live.auth.authenticate(credentials)
        let sessions = try database.read { db throws(DatabaseError) in try db.query("SELECT count(*) FROM sessions") { $0.int(0) } }
        #expect(sessions == [1], "the expired session went as the new one opened")
        try await live.auth.signOut(fresh.token)
        await #expect(throws: AppError.sessionExpired) { try await live.notes.list(fresh.token) }
    }

    @Test func postsAreTheUsersNewestFirst() async throws {
        let live = try environment()
        _ = try await live.auth.signUp(credentials)
        let session = try await live.auth.authenticate(credentials)
        _ = try await live.profile.addPost(session.token, "first")
        let second = try await live.profile.addPost(session.token, "second")
        let posts = try await live.profile.loadPosts(session.token)
        #expect(posts.map(\.text) == ["second", "first"])
        #expect(posts.first == second)
        await #expect(throws: AppError.invalidInput(reason: "A post needs some text.")) { try await live.profile.addPost(session.token, " ") }
    }

    @Test func notesBelongToTheirOwnerAndSearchTakesEveryCharacterLiterally() async throws {
        let live = try environment()
        _ = try await live.auth.signUp(credentials)
        let alice = try await live.auth.authenticate(credentials)
        let base = Date(timeIntervalSince1970: 1_800_000_000)
        let texts = [
            "100% sure", "1000 things", "snake_case", "snakeXcase", "back\\slash", "it's \"quoted\"",
            "Crème brûlée 🍮", String(repeating: "long ", count: 200_000),
        ]
        var notes: [Note] = []
        for (offset, text) in texts.enumerated() {
            let note = Note(
                id: Note.ID(UUID(sequence: UInt64(500 + offset))), text: text, createdAt: base,
                updatedAt: base.addingTimeInterval(Double(offset)))
            let stored = try await live.notes.create(alice.token, note)
            #expect(stored.version != nil && stored.version != notes.last?.version, "each write is a new version")
            var asGiven = stored
            asGiven.version = nil
            #expect(asGiven == note)
            notes.append(stored)
        }
        let listed = try await live.notes.list(alice.token)
        #expect(listed == notes.reversed(), "stored and read back byte for byte, newest first")
        func search(_ query: String) async throws -> [String] {
            try await live.notes.search(alice.token, query).map(\.text)
        }
        #expect(try await search("100%") == ["100% sure"])
        #expect(try await search("snake_case") == ["snake_case"])
        #expect(try await search("\\") == ["back\\slash"])
        #expect(try await search("\"quoted\" it's") == ["it's \"quoted\""])
        #expect(try await search("🍮") == ["Crème brûlée 🍮"])
        #expect(try await search("'; DROP TABLE notes; --").isEmpty)
        #expect(try await live.notes.list(alice.token).count == texts.count)

        var edited = notes[0]
        edited.text = "100% certain"
        edited.updatedAt = base.addingTimeInterval(100)
        edited = try await live.notes.update(alice.token, edited)
        #expect(edited.text == "100% certain" && edited.version ?? 0 > notes[0].version ?? 0)
        #expect(try await live.notes.list(alice.token).first == edited)

        let bobCredentials = Credentials(username: "bob.builder", password: "canwefixit")
        _ = try await live.auth.signUp(bobCredentials)
        let bob = try await live.auth.authenticate(bobCredentials)
        #expect(try await live.notes.list(bob.token).isEmpty)
        let notFound = AppError.notFound(.note, id: edited.id.description)
        await #expect(throws: notFound) { try await live.notes.update(bob.token, edited) }
        try await live.notes.delete(bob.token, edited) // not Bob's: nothing of Alice's is touched
        // The same id in another account is that account's own note: no error says Alice has one.
        var bobs = edited
        bobs.text = "bob's own"
        bobs.version = nil
        bobs = try await live.notes.create(bob.token, bobs)
        #expect(try await live.notes.list(bob.token) == [bobs])
        #expect(try await live.notes.list(alice.token).first == edited)
        try await live.notes.delete(bob.token, bobs)
        try await live.notes.delete(alice.token, edited)
        try await live.notes.delete(alice.token, edited) // gone already: not an error
        #expect(try await live.notes.list(alice.token).contains { $0.id == edited.id } == false)
    }

    @Test func everyCharacterRoundTripsNULIncludedAcrossAReopen() async throws {
        let path = folder.file("bytes.sqlite")
        let live = try environment(Database(path: path, migrations: AppSchema.migrations))
        _ = try await live.auth.signUp(credentials)
        let alice = try await live.auth.authenticate(credentials)
        // Every one-byte character, NUL first, and characters of every UTF-8 length.
        let everyASCII = String(decoding: (0..<128).map { UInt8($0) }, as: UTF8.self)
        let texts = ["before\0after", "\0", everyASCII, "é中🍮\u{10FFFF}\0end"]
        let base = Date(timeIntervalSince1970: 1_800_000_000)
        for (offset, text) in texts.enumerated() {
            let note = Note(id: Note.ID(UUID(sequence: UInt64(900 + offset))), text: text, createdAt: base, updatedAt: base.addingTimeInterval(Double(offset)))
            _ = try await live.notes.create(alice.token, note)
        }
        let reopened = try environment(Database(path: path, migrations: AppSchema.migrations))
        let token = try await reopened.auth.authenticate(credentials).token
        let stored = try await reopened.notes.list(token).map(\.text)
        #expect(stored == texts.reversed())
        #expect(stored.last?.utf8.count == 12, "\"before\\0after\" whole: nothing cut at the NUL")
    }

    @Test func aNoteThatDoesNotDecodeIsNamedAndTheOthersAreListed() async throws {
        let database = try Database(path: folder.file("corrupt.sqlite"), migrations: AppSchema.migrations)
        let warnings = Locked<[String]>([])
        let live = AppEnvironment.live(
            database: database, configuration: .testing, clock: clock, uuid: .incrementing(), now: .live,
            warnings: { line in warnings.withLock { $0.append(line) } })
        _ = try await live.auth.signUp(credentials)
        let alice = try await live.auth.authenticate(credentials)
        for sequence in 1...200 {
            let note = Note(id: Note.ID(UUID(sequence: UInt64(sequence))), text: "note \(sequence)", createdAt: Date(timeIntervalSince1970: 1_800_000_000))
            _ = try await live.notes.create(alice.token, note)
        }
        let broken = Note.ID(UUID(sequence: 77)).description
        try database.write { db throws(DatabaseError) in try db.execute("UPDATE notes SET id = 'not-an-id' WHERE id = ?", [.text(broken)]) }
        let listed = try await live.notes.list(alice.token)
        #expect(listed.count == 199, "the other notes are listed")
        #expect(!listed.contains { $0.text == "note 77" }, "never under a made-up id")
        #expect(warnings.withLock { $0 } == ["1 stored note could not be read and is not listed (damaged id “not-an-id”)"])
    }

    @Test func theIndexKeepsUpWhileWritesGoOn() async throws {
        let database = try Database(path: folder.file("app.sqlite"), migrations: AppSchema.migrations)
        let live = try environment(database)
        _ = try await live.auth.signUp(credentials)
        let session = try await live.auth.authenticate(credentials)
        let other = try Database(path: folder.file("app.sqlite"), migrations: AppSchema.migrations)
        func indexed() throws -> Int {
            try other.read { db throws(DatabaseError) in
                try db.query("SELECT count(*) FROM notes WHERE change_sequence <= \(SearchIndex.progressOfNotesOwner)") { $0.int(0) }
            }.first ?? 0
        }
        // Writes one after another, never quiet: the index must catch some of them meanwhile.
        var written = 0
        while try indexed() == 0, written < 10_000 {
            _ = try await live.notes.create(session.token, Note(id: Note.ID(UUID()), text: "note \(written) milk", createdAt: Date()))
            written += 1
        }
        #expect(try indexed() > 0, "nothing was indexed while \(written) notes were written")
    }

    @Test func fullTextAndLikeSearchesFindTheSameNotes() async throws {
        let database = try Database(path: folder.file("app.sqlite"), migrations: AppSchema.migrations)
        #expect(try database.read { db throws(DatabaseError) in try db.tableExists("notes_search") }, "this SQLite has FTS5")
        // The index rests for an hour: the searches below read the notes unindexed until it is built.
        let live = try environment(database, configuration: LiveConfiguration(passwordIterations: 1_000, searchIndexPace: .seconds(3_600)))
        _ = try await live.auth.signUp(credentials)
        let session = try await live.auth.authenticate(credentials)
        let base = Date(timeIntervalSince1970: 1_800_000_000)
        for (offset, text) in ["Groceries: MILK, eggs", "milkshake recipe", "call mum", "50% off_sale", "ab cd"].enumerated() {
            _ = try await live.notes.create(
                session.token,
                Note(
                    id: Note.ID(UUID(sequence: UInt64(offset + 1))), text: text, createdAt: base,
                    updatedAt: base.addingTimeInterval(Double(offset))))
        }
        var edited = try #require(try await live.notes.list(session.token).last)
        edited.text = "Groceries: oat milk"
        _ = try await live.notes.update(session.token, edited)
        try await live.notes.delete(session.token, Note(id: Note.ID(UUID(sequence: 3)), text: "", createdAt: base))
        let queries = ["milk", "MILK groceries", "mum", "ab", "0% off_", "shake", "b c", "zzz"]
        // Before the index caught up: the notes are read and matched one by one.
        var unindexed: [[String]] = []
        for query in queries { unindexed.append(try await live.notes.search(session.token, query).map(\.text)) }
        try SearchIndex.indexAll(in: database)
        var withIndex: [[String]] = []
        for query in queries { withIndex.append(try await live.notes.search(session.token, query).map(\.text)) }
        #expect(unindexed == withIndex)
        #expect(withIndex[0] == ["milkshake recipe", "Groceries: oat milk"])
        #expect(withIndex[1] == ["Groceries: oat milk"])
        #expect(withIndex[2].isEmpty, "the deleted note left the index")
        #expect(withIndex[3] == ["ab cd"])
        #expect(withIndex[4] == ["50% off_sale"])

        // The same database without FTS5: the same answers.
        try database.write { db throws(DatabaseError) in
            try db.executeScript("DROP TABLE notes_search;")
        }
        var withoutIndex: [[String]] = []
        for query in queries { withoutIndex.append(try await live.notes.search(session.token, query).map(\.text)) }
        #expect(withoutIndex == withIndex)
    }

    @Test func notesWrittenBeforeVersion4AreKeptAndFoundAfterTheMigration() async throws {
        let path = folder.file("old.sqlite")
        let old = try Database(path: path, migrations: Array(AppSchema.migrations.prefix(3)))
        _ = try await environment(old).auth.signUp(credentials)
        try old.write { db throws(DatabaseError) in
            let owner = try db.query("SELECT id FROM accounts") { $0.text(0) }.first ?? ""
            for (sequence, text) in [(1, "buy oat milk"), (2, "call mum")] {
                try db.execute(
                    "INSERT INTO notes (id, owner_id, text, created_at, updated_at) VALUES (?, ?, ?, 0, ?)",
                    [.text(Note.ID(UUID(sequence: UInt64(sequence))).description), .text(owner), .text(text), .real(Double(sequence))])
            }
            // Version 3's index, keyed by the old rowids.
            try db.execute("INSERT INTO notes_search (rowid, text) SELECT rowid, text FROM notes")
            try db.execute("UPDATE notes SET search_indexed = 1")
        }
        old.close()

        let live = try environment(Database(path: path, migrations: AppSchema.migrations))
        let session = try await live.auth.authenticate(credentials)
        #expect(try await live.notes.list(session.token).map(\.text) == ["call mum", "buy oat milk"])
        #expect(try await live.notes.search(session.token, "milk").map(\.text) == ["buy oat milk"])
        _ = try await live.notes.create(
            session.token,
            Note(
                id: Note.ID(UUID(sequence: 3)), text: "milk chocolate", createdAt: Date(timeIntervalSinceReferenceDate: 0),
                updatedAt: Date(timeIntervalSinceReferenceDate: 10)))
        #expect(try await live.notes.search(session.token, "milk").map(\.text) == ["milk chocolate", "buy oat milk"])
        #expect(try await live.notes.search(session.token, "mum").map(\.text) == ["call mum"])
    }

    @Test func notesIndexedBeforeVersion11AreNotIndexedAgainAndTheRestAreFound() async throws {
        let path = folder.file("v10.sqlite")
        let old = try Database(path: path, migrations: Array(AppSchema.migrations.prefix(10)))
        let oldLive = try environment(old, configuration: LiveConfiguration(passwordIterations: 1_000, searchIndexPace: .seconds(3_600)))
        _ = try await oldLive.auth.signUp(credentials)
        // Signing in now spaces attempts by a column of version 13: lent to this version-10 file
        // for the sign in, and taken back before it migrates.
        try old.write { db throws(DatabaseError) in
            try db.execute("ALTER TABLE sign_in_failures ADD COLUMN next_attempt_at REAL NOT NULL DEFAULT 0")
        }
        let oldSession = try await oldLive.auth.authenticate(credentials)
        try old.write { db throws(DatabaseError) in try db.execute("ALTER TABLE sign_in_failures DROP COLUMN next_attempt_at") }
        let base = Date(timeIntervalSinceReferenceDate: 0)
        for (sequence, text) in [(1, "buy oat milk"), (2, "call mum"), (3, "milk the cow"), (4, "walk")] {
            _ = try await oldLive.notes.create(
                oldSession.token,
                Note(id: Note.ID(UUID(sequence: UInt64(sequence))), text: text, createdAt: base, updatedAt: base.addingTimeInterval(Double(sequence))))
        }
        // Version 10's indexer took the first two (as it did: the folded text under a new row
        // number, the note marked); the last two were written after it.
        try old.write { db throws(DatabaseError) in
            for sequence in [1, 2] {
                let id = Note.ID(UUID(sequence: UInt64(sequence))).description
                let text = try db.query("SELECT text FROM notes WHERE id = ?", [.text(id)]) { $0.text(0) }.first ?? ""
                try db.execute("INSERT INTO notes_search (rowid, text) VALUES (?, ?)", [.int(sequence), .text(SearchText.folded(text))])
                try db.execute("UPDATE notes SET search_indexed = 1, search_rowid = ? WHERE id = ?", [.int(sequence), .text(id)])
            }
        }
        old.close()

        let database = try Database(path: path, migrations: AppSchema.migrations)
        let progress = try database.read { db throws(DatabaseError) in try db.query("SELECT indexed_through FROM search_progress") { $0.int(0) } }
        #expect(progress == [2], "indexed through the last note version 10 had indexed")
        let live = try environment(database, configuration: LiveConfiguration(passwordIterations: 1_000, searchIndexPace: .seconds(3_600)))
        let session = try await live.auth.authenticate(credentials)
        #expect(try await live.notes.search(session.token, "milk").map(\.text) == ["milk the cow", "buy oat milk"])
        try SearchIndex.indexAll(in: database)
        #expect(try await live.notes.search(session.token, "milk").map(\.text) == ["milk the cow", "buy oat milk"])
        let indexRows = try database.read { db throws(DatabaseError) in try db.query("SELECT count(*) FROM notes_search") { $0.int(0) } }
        #expect(indexRows == [4], "each note is in the index once")
        // An edit leaves the index until it is indexed again, and is found meanwhile.
        var edited = try #require(try await live.notes.list(session.token).first { $0.text == "walk" })
        edited.text = "walk to the milk bar"
        _ = try await live.notes.update(session.token, edited)
        #expect(try await live.notes.search(session.token, "milk").map(\.text) == ["walk to the milk bar", "milk the cow", "buy oat milk"])
        #expect(try await live.notes.search(session.token, "walk").map(\.text) == ["walk to the milk bar"])
    }

    @Test func theIndexMergesItsSegmentsInStepsOfItsOwn() async throws {
        // Merging is off inside writes, on a database made at version 11 as on a new one.
        let path = folder.file("v11.sqlite")
        try Database(path: path, migrations: Array(AppSchema.migrations.prefix(11))).close()
        for database in [
            try Database(path: path, migrations: AppSchema.migrations), try Database(path: folder.file("app.sqlite"), migrations: AppSchema.migrations),
        ] {
            let automerge = try database.read { db throws(DatabaseError) in
                try db.query("SELECT v FROM notes_search_config WHERE k = 'automerge'") { $0.int(0) }
            }
            #expect(automerge == [0], "\(database.path)")
        }
        // Indexed in sixty small batches, as a steady stream of writes leaves them: the index's own
        // merge steps keep its segments few (6 here; without them, level-0 segments pile up: 15).
        let database = try Database(path: folder.file("app.sqlite"), migrations: AppSchema.migrations)
        let live = try environment(database, configuration: LiveConfiguration(passwordIterations: 1_000, searchIndexPace: .seconds(3_600)))
        _ = try await live.auth.signUp(credentials)
        let session = try await live.auth.authenticate(credentials)
        for batch in 0..<60 {
            for number in 0..<20 {
                _ = try await live.notes.create(session.token, Note(id: Note.ID(UUID()), text: "note \(batch).\(number): remember the milk", createdAt: Date()))
            }
            try SearchIndex.indexAll(in: database)
        }
        let segments = try database.read { db throws(DatabaseError) in
            try db.query("SELECT count(DISTINCT segid) FROM notes_search_idx") { $0.int(0) }.first ?? 0
        }
        #expect(segments <= 8, "\(segments) segments")
        #expect(try await live.notes.search(session.token, "milk").count == 1_200)
        #expect(try await live.notes.search(session.token, "note 59.19:").count == 1)
    }

    @Test func storageFailuresAreTypedAndKeepWhatWasStored() async throws {
        let path = folder.file("app.sqlite")
        let database = try Database(path: path, migrations: AppSchema.migrations)
        let live = try environment(database)
        _ = try await live.auth.signUp(credentials)
        let session = try await live.auth.authenticate(credentials)
        let kept = Note(id: Note.ID(UUID(sequence: 1)), text: "kept", createdAt: Date(timeIntervalSince1970: 0))
        let stored = try await live.notes.create(session.token, kept)
        // Another connection holds the write lock past the busy timeout.
        let blocker = try Database(path: path, migrations: AppSchema.migrations, busyTimeout: .milliseconds(10))
        let impatient = try Database(path: path, migrations: AppSchema.migrations, busyTimeout: .milliseconds(20))
        let blocked = AppEnvironment.live(database: impatient, configuration: .testing, clock: clock)
        let holder = await LockHolder.hold(blocker)
        do {
            _ = try await blocked.notes.create(session.token, Note(id: Note.ID(UUID(sequence: 2)), text: "new", createdAt: Date()))
            Issue.record("the write went through a held lock")
        } catch {
            guard case .storage(let reason) = error else { throw error }
            #expect(reason == "another process is using the database; retry")
        }
        // A sign-in that cannot be recorded says the sign-in failed, in words, without SQL.
        do {
            _ = try await blocked.auth.authenticate(credentials)
            Issue.record("the sign-in went through a held lock")
        } catch {
            #expect(error == .storage(reason: "signing in failed: another process is using the database; retry"))
            #expect(
                error.message == "Signing in failed: another process is using the database; retry. Nothing you typed was lost; retry when the problem is fixed."
            )
        }
        try await holder.release()
        #expect(try await live.notes.list(session.token) == [stored])
    }
}
