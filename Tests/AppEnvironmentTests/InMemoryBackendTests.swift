import AppEnvironment
import Foundation
import Models
import StateStore
import StateStoreTesting
import TestSupport
import Testing

@Suite("In-memory clients")
struct InMemoryBackendTests {
    let environment = AppEnvironment.inMemory()
    let credentials = Credentials(username: "Alice.Liddell", password: "wonderland")

    func signedIn() async throws -> AuthSession {
        _ = try await environment.auth.signUp(credentials)
        return try await environment.auth.authenticate(credentials)
    }

    @Test func accountsAreUniqueIgnoringCase() async throws {
        let user = try await environment.auth.signUp(credentials)
        #expect(user.username == "Alice.Liddell")
        #expect(user.id == User.ID(UUID(sequence: 1)), "ids are deterministic")
        await #expect(throws: AppError.usernameTaken("alice.liddell")) {
            try await environment.auth.signUp(Credentials(username: "alice.liddell", password: "different1"))
        }
        await #expect(throws: AppError.invalidInput(reason: "A password needs at least 8 characters.")) {
            try await environment.auth.signUp(Credentials(username: "bob.builder", password: "short"))
        }
    }

    @Test func anUnknownUserAndAWrongPasswordFailAlike() async throws {
        _ = try await environment.auth.signUp(credentials)
        await #expect(throws: AppError.invalidCredentials) {
            try await environment.auth.authenticate(Credentials(username: "alice.liddell", password: "wrong-password"))
        }
        await #expect(throws: AppError.invalidCredentials) {
            try await environment.auth.authenticate(Credentials(username: "nobody.here", password: "wonderland"))
        }
        let session = try await environment.auth.authenticate(Credentials(username: "ALICE.LIDDELL", password: "wonderland"))
        #expect(session.user.username == "Alice.Liddell")
    }

    /// Sessions expire as the live clients' do, and say when: the app ends one at that time.
    @Test func aSessionExpiresAfterItsLifetimeAndSaysWhen() async throws {
        let clock = TestClock()
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let backend = InMemoryBackend(now: .following(clock, from: start), sessionLifetime: 60)
        let environment = AppEnvironment.inMemory(backend: backend, clock: clock, start: start)
        _ = try await environment.auth.signUp(credentials)
        let session = try await environment.auth.authenticate(credentials)
        #expect(session.expiresAt == start.addingTimeInterval(60))
        await clock.advance(by: .seconds(59))
        #expect(try await environment.profile.load(session.token).username == "Alice.Liddell")
        await clock.advance(by: .seconds(1))
        await #expect(throws: AppError.sessionExpired) { try await environment.profile.load(session.token) }
        await #expect(throws: AppError.sessionExpired) { try await environment.notes.list(session.token) }
    }

    @Test func signingOutInvalidatesTheToken() async throws {
        let session = try await signedIn()
        #expect(try await environment.profile.load(session.token).id == session.user.id)
        try await environment.auth.signOut(session.token)
        await #expect(throws: AppError.sessionExpired) { try await environment.profile.load(session.token) }
        await #expect(throws: AppError.sessionExpired) { try await environment.notes.list(session.token) }
        try await environment.auth.signOut(session.token)
    }

    @Test func postsAreTheUsersNewestFirst() async throws {
        let session = try await signedIn()
        _ = try await environment.profile.addPost(session.token, "first")
        _ = try await environment.profile.addPost(session.token, "second")
        #expect(try await environment.profile.loadPosts(session.token).map(\.text) == ["second", "first"])
        await #expect(throws: AppError.invalidInput(reason: "A post needs some text.")) {
            try await environment.profile.addPost(session.token, "  ")
        }
    }

    @Test func notesAreCreatedUpdatedSearchedAndDeletedForTheirOwnerOnly() async throws {
        let session = try await signedIn()
        let date = Date(timeIntervalSince1970: 1_800_000_000)
        let milk = Note(id: Note.ID(UUID(sequence: 50)), text: "buy milk", createdAt: date)
        let eggs = Note(id: Note.ID(UUID(sequence: 51)), text: "buy eggs", createdAt: date, updatedAt: date.addingTimeInterval(1))
        _ = try await environment.notes.create(session.token, milk)
        _ = try await environment.notes.create(session.token, milk) // a retried create is safe
        _ = try await environment.notes.create(session.token, eggs)
        #expect(try await environment.notes.list(session.token).map(\.text) == ["buy eggs", "buy milk"])
        var edited = milk
        edited.text = "buy oat milk"
        edited.updatedAt = date.addingTimeInterval(5)
        _ = try await environment.notes.update(session.token, edited)
        #expect(try await environment.notes.search(session.token, "MILK").map(\.id) == [milk.id])
        #expect(try await environment.notes.list(session.token).first?.text == "buy oat milk")

        // Another user sees none of it and cannot touch it.
        let other = Credentials(username: "bob.builder", password: "canwefixit")
        _ = try await environment.auth.signUp(other)
        let bob = try await environment.auth.authenticate(other)
        #expect(try await environment.notes.list(bob.token).isEmpty)
        await #expect(throws: AppError.notFound(.note, id: milk.id.description)) { try await environment.notes.update(bob.token, edited) }
        // Deleting what is not there (for Bob) asks for what is so: no error, and Alice's note stays.
        try await environment.notes.delete(bob.token, milk)
        // The same id in Bob's account is his own note: no error says Alice has one.
        let bobs = try await environment.notes.create(bob.token, eggs)
        #expect(try await environment.notes.list(bob.token) == [bobs])
        try await environment.notes.delete(bob.token, eggs)
        #expect(try await environment.notes.list(session.token).map(\.id) == [milk.id, eggs.id])

        try await environment.notes.delete(session.token, milk)
        try await environment.notes.delete(session.token, milk) // gone already: not an error
        #expect(try await environment.notes.list(session.token).map(\.id) == [eggs.id])
    }
}

@Suite("A writer's own runs of note writes")
struct NoteVersionsTests {
    let id = Note.ID(UUID(sequence: 1))

    @Test func newNotesAreNotRememberedAndAllowWhatTheyDidBefore() {
        var versions = NoteVersions()
        for number in 1...1_000 { versions.record(Note.ID(UUID(sequence: UInt64(number))), replaced: nil, wrote: Int64(number)) }
        #expect(versions.rememberedNotes == 0, "a new note's write starts no run")
        #expect(versions.allows(id, base: nil, stored: 1), "a change without a base replaces anything")
        #expect(versions.allows(id, base: 1, stored: 1), "a change based on what is stored")
        #expect(!versions.allows(id, base: 0, stored: 1), "a change based on an older version is a conflict")
    }

    @Test func aWritersQuickSuccessionIsNotAConflictButAnotherWritersVersionIs() {
        var versions = NoteVersions()
        versions.record(id, replaced: nil, wrote: 1)
        // Edited from 1, then edited again from 1 before the first save was heard of.
        versions.record(id, replaced: 1, wrote: 2)
        #expect(versions.rememberedNotes == 1)
        #expect(versions.allows(id, base: 1, stored: 2))
        versions.record(id, replaced: 2, wrote: 3)
        #expect(versions.allows(id, base: 1, stored: 3) && versions.allows(id, base: 2, stored: 3))
        // Another writer stored 4 meanwhile: a change based on this writer's versions conflicts.
        #expect(!versions.allows(id, base: 3, stored: 4))
        // Deleted: the run is forgotten.
        versions.record(id, replaced: 3, wrote: nil)
        #expect(versions.rememberedNotes == 0)
        #expect(!versions.allows(id, base: 1, stored: 3))
    }
}

@Suite("Environment decorators and test values")
struct EnvironmentDecoratorTests {
    @Test func injectedFailuresHitOnlyTheirEndpointAndRunOut() async throws {
        let failures = FailureInjector()
        let environment = AppEnvironment.inMemory().injectingFailures(failures)
        let credentials = Credentials(username: "alice.liddell", password: "wonderland")
        failures.failNext(.authSignUp, count: 2)
        failures.failNext(.authSignUp, with: .storage(reason: "disk full"))
        #expect(failures.pendingFailures(of: .authSignUp) == 3)
        await #expect(throws: AppError.network(reason: "simulated failure of auth.signUp")) { try await environment.auth.signUp(credentials) }
        await #expect(throws: AppError.network(reason: "simulated failure of auth.signUp")) { try await environment.auth.signUp(credentials) }
        await #expect(throws: AppError.storage(reason: "disk full")) { try await environment.auth.signUp(credentials) }
        _ = try await environment.auth.signUp(credentials)
        #expect(failures.pendingFailures(of: .authSignUp) == 0)
        failures.failNext(.notesList)
        failures.reset()
        let session = try await environment.auth.authenticate(credentials)
        #expect(try await environment.notes.list(session.token).isEmpty)
    }

    @Test func aClientWithoutPagesCutsThemFromItsSearchAndADecoratorKeepsItsOwn() async throws {
        let notes = [
            Note(id: Note.ID(UUID(sequence: 2)), text: "oat milk", createdAt: Date(timeIntervalSince1970: 0)),
            Note(id: Note.ID(UUID(sequence: 1)), text: "milk", createdAt: Date(timeIntervalSince1970: 0)),
        ]
        let searching = NotesClient(
            list: { _ in [] }, create: { _, note in note }, update: { _, note in note }, delete: { _, _ in }, search: { _, _ in notes })
        #expect(searching.pages == nil)
        let token = AccessToken("t")
        #expect(try await searching.page(token, "milk", after: nil, limit: 1) == NotePage(notes: [notes[0]], total: 2))
        #expect(try await searching.page(token, "milk", after: NotesPosition(notes[0]), limit: 5) == NotePage(notes: [notes[1]], total: 2))
        // The hook runs for a page as for a search, and the page is the client's own.
        var paging = searching
        paging.pages = { _, _, _, _ in NotePage(notes: [notes[1]], total: 7) }
        let failures = FailureInjector()
        let environment = AppEnvironment(
            auth: .failing(), profile: .failing(), notes: paging, clock: TestClock(), uuid: .incrementing(), now: .constant(Date(timeIntervalSince1970: 0))
        ).injectingFailures(failures)
        #expect(environment.notes.pages != nil)
        failures.failNext(.notesSearch)
        await #expect(throws: AppError.network(reason: "simulated failure of notes.search")) {
            try await environment.notes.page(token, "milk", after: nil, limit: 5)
        }
        #expect(try await environment.notes.page(token, "milk", after: nil, limit: 5) == NotePage(notes: [notes[1]], total: 7))
    }

    @Test func latencyWaitsOnTheEnvironmentsClock() async throws {
        let clock = TestClock()
        let environment = AppEnvironment.inMemory(clock: clock).withLatency(.seconds(2))
        let credentials = Credentials(username: "alice.liddell", password: "wonderland")
        let done = Locked(false)
        let call = Task {
            _ = try await environment.auth.signUp(credentials)
            done.withLock { $0 = true }
        }
        #expect(await clock.untilSleeping())
        await clock.advance(by: .milliseconds(1999))
        #expect(!done.withLock { $0 })
        await clock.advance(by: .milliseconds(1))
        try await call.value
        #expect(done.withLock { $0 })
    }

    @Test func aCancelledWaitFailsAsCancelled() async {
        let clock = TestClock()
        let environment = AppEnvironment.inMemory(clock: clock).withLatency(.seconds(2))
        let call = Task { try await environment.notes.list(AccessToken("x")) }
        #expect(await clock.untilSleeping())
        call.cancel()
        await #expect(throws: AppError.cancelled) { try await call.value }
    }

    @Test func failingClientsReportEveryCall() async {
        let reports = Locked<[String]>([])
        let environment = AppEnvironment.failing(UnexpectedCallReporter { message in reports.withLock { $0.append(message) } })
        let token = AccessToken("t")
        let credentials = Credentials(username: "alice.liddell", password: "wonderland")
        let note = Note(id: Note.ID(UUID(sequence: 1)), text: "", createdAt: Date())
        _ = try? await environment.auth.signUp(credentials)
        _ = try? await environment.auth.authenticate(credentials)
        _ = try? await environment.auth.signOut(token)
        _ = try? await environment.profile.load(token)
        _ = try? await environment.profile.loadPosts(token)
        _ = try? await environment.profile.addPost(token, "x")
        _ = try? await environment.notes.list(token)
        _ = try? await environment.notes.create(token, note)
        _ = try? await environment.notes.update(token, note)
        _ = try? await environment.notes.delete(token, note)
        _ = try? await environment.notes.search(token, "x")
        _ = try? await environment.notes.changes(token, nil)
        let names = reports.withLock { $0 }.map { $0.split(separator: " ")[3] }
        #expect(names.map(String.init) == Endpoint.allCases.map { $0.rawValue + ":" })
    }

    @Test func noopClientsDoNothingHarmful() async throws {
        let environment = AppEnvironment.noop()
        let token = AccessToken("t")
        try await environment.auth.signOut(token)
        #expect(try await environment.notes.list(token).isEmpty)
        #expect(try await environment.profile.loadPosts(token).isEmpty)
        await #expect(throws: AppError.self) { try await environment.profile.load(token) }
    }

    @Test func liveIdentifiersAreRandomVersion4UUIDs() {
        let ids = (0..<1_000).map { _ in UUIDGenerator.live() }
        #expect(Set(ids).count == ids.count)
        for id in ids {
            let text = id.uuidString.lowercased()
            let characters = Array(text)
            #expect(characters[14] == "4", "version 4: \(text)")
            #expect("89ab".contains(characters[19]), "RFC 4122 variant: \(text)")
        }
    }

    @Test func timeOrderedIdentifiersAreVersion7AndSortInTheOrderMade() {
        let before = Date()
        let ids = (0..<10_000).map { _ in UUIDGenerator.timeOrdered() }
        let after = Date()
        #expect(Set(ids).count == ids.count)
        let texts = ids.map { $0.uuidString.lowercased() }
        // Sorted as text too: the order a database's text key keeps them in.
        #expect(texts == texts.sorted(), "each id after the one before")
        for text in texts {
            let characters = Array(text)
            #expect(characters[14] == "7", "version 7: \(text)")
            #expect("89ab".contains(characters[19]), "RFC 9562 variant: \(text)")
        }
        // The first 48 bits are the Unix time in milliseconds of the id's making.
        let milliseconds = UInt64(texts[0].prefix(13).replacingOccurrences(of: "-", with: ""), radix: 16) ?? 0
        #expect(milliseconds >= UInt64(before.timeIntervalSince1970 * 1_000) && milliseconds <= UInt64(after.timeIntervalSince1970 * 1_000) + 5)
    }

    @Test func generatorsArePredictable() {
        let ids = UUIDGenerator.incrementing()
        #expect(ids().uuidString == "00000000-0000-0000-0000-000000000001")
        #expect(ids().uuidString == "00000000-0000-0000-0000-000000000002")
        #expect(UUID(sequence: 0x1_0000).uuidString == "00000000-0000-0000-0000-000000010000")
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(DateGenerator.constant(start)() == start)
    }

    @Test func datesFollowATestClock() async {
        let clock = TestClock()
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let now = DateGenerator.following(clock, from: start)
        #expect(now() == start)
        await clock.advance(by: .milliseconds(1500))
        #expect(now() == start.addingTimeInterval(1.5))
    }
}
