import AppEnvironment
import Foundation
import Models
import StateStoreTesting
import TestSupport
import Testing

@testable import Persistence

/// One definition of matching (`SearchText`): the same queries find the same notes in memory
/// and on a database, before and after the full-text index caught up.
@Suite("Search parity")
struct SearchParityTests {
    let folder = TemporaryFolder()

    static let texts = [
        "Café au lait", "ÉTÉ indien", "Re\u{301}sume\u{301} (decomposed)", "Résumé (composed)", "ﬁle cabinet",
        "ＡＢＣ full width", "milk and eggs", "naïve ÇA", "straße", "before\u{0}afterword",
    ]

    /// Each query, and the notes it must find (by their index in ``texts``).
    static let cases: [(query: String, finds: Set<Int>)] = [
        ("cafe", [0]), ("CAFÉ", [0]), ("ét", [1, 4]), ("ete", [1]), ("Résumé", [2, 3]),
        ("Re\u{301}sume\u{301}", [2, 3]), ("resume", [2, 3]), ("file", [4]), ("abc", [5]), ("ＡＢＣ", [5]),
        ("milk eggs", [6]), ("mlik", []), ("naive ca", [7]), ("ca", [0, 4, 7]), ("e", [0, 1, 2, 3, 4, 6, 7, 8, 9]),
        ("straße", [8]), ("STRASSE", [8]),
        // A NUL is text like any other, in a note and in a query.
        ("afterword", [9]), ("e\u{0}a", [9]), ("\u{0}", [9]), ("re\u{0}AFT", [9]), ("eggs\u{0}", []),
    ]

    func found(_ notes: NotesClient, _ token: AccessToken, _ query: String) async throws -> Set<Int> {
        Set(try await notes.search(token, query).compactMap { note in Self.texts.firstIndex(of: note.text) })
    }

    /// Both backends, in memory and on a database file named `file`, each holding ``texts`` for
    /// a signed-up user (the note at `offset` made at `createdAt(offset)`), and each one's token.
    /// The database's index rests for an hour: the first searches read the notes unindexed.
    func backends(
        _ file: String, createdAt: (Int) -> Date
    ) async throws -> (memory: AppEnvironment, live: AppEnvironment, database: Database, tokens: [AccessToken]) {
        let credentials = Credentials(username: "alice.liddell", password: "wonderland")
        let memory = AppEnvironment.inMemory()
        let database = try Database(path: folder.file(file), migrations: AppSchema.migrations)
        let live = AppEnvironment.live(
            database: database, configuration: LiveConfiguration(passwordIterations: 1_000, searchIndexPace: .seconds(3_600)), clock: TestClock())
        var tokens: [AccessToken] = []
        for environment in [memory, live] {
            _ = try await environment.auth.signUp(credentials)
            let token = try await environment.auth.authenticate(credentials).token
            for (offset, text) in Self.texts.enumerated() {
                _ = try await environment.notes.create(
                    token, Note(id: Note.ID(UUID(sequence: UInt64(offset + 1))), text: text, createdAt: createdAt(offset)))
            }
            tokens.append(token)
        }
        return (memory, live, database, tokens)
    }

    @Test func inMemoryAndOnADatabaseAQueryFindsTheSameNotes() async throws {
        let (memory, live, database, tokens) = try await backends("app.sqlite") { _ in Date(timeIntervalSince1970: 1_800_000_000) }
        for (query, finds) in Self.cases {
            let inMemory = try await found(memory.notes, tokens[0], query)
            #expect(inMemory == finds, "in memory: \(query) found \(inMemory.sorted())")
            #expect(try await found(live.notes, tokens[1], query) == finds, "on a database, not indexed yet: \(query)")
        }
        try SearchIndex.indexAll(in: database)
        for (query, finds) in Self.cases {
            #expect(try await found(live.notes, tokens[1], query) == finds, "on a database, indexed: \(query)")
        }
    }

    /// Every page of `query` in `notes`, `size` at a time, and the totals each page said.
    func pages(_ notes: NotesClient, _ token: AccessToken, _ query: String, size: Int) async throws -> (notes: [Note], totals: Set<Int>) {
        var (all, totals, after): ([Note], Set<Int>, NotesPosition?) = ([], [], nil)
        while true {
            let page = try await notes.page(token, query, after: after, limit: size)
            all += page.notes
            totals.insert(page.total)
            guard page.notes.count == size, let last = page.notes.last else { return (all, totals) }
            after = NotesPosition(last)
        }
    }

    @Test func pagesWalkTheListAndEachSearchInOrderAndCountThemOnBothBackends() async throws {
        // Some at the same moment: their ids order them.
        let (memory, live, database, tokens) = try await backends("pages.sqlite") { Date(timeIntervalSince1970: 1_800_000_000 + Double($0 / 3)) }
        for indexed in [false, true] {
            if indexed { try SearchIndex.indexAll(in: database) }
            for query in [""] + Self.cases.map(\.query) {
                for (environment, token) in zip([memory, live], tokens) {
                    let whole = query.isEmpty ? try await environment.notes.list(token) : try await environment.notes.search(token, query)
                    for size in [1, 2, 4, 50] {
                        let paged = try await pages(environment.notes, token, query, size: size)
                        #expect(paged.notes == whole, "“\(query)”, pages of \(size), indexed \(indexed)")
                        #expect(paged.totals == [whole.count], "“\(query)”, pages of \(size), indexed \(indexed)")
                    }
                }
            }
        }
    }

    /// Past each way of reading a page: matching each note walked (a word most of a sole owner's
    /// notes hold), and the set of matches (a rarer word, or two owners).
    @Test(arguments: [(1, LiveBackend.matchesSortedWhole + 200), (2, LiveBackend.matchesSortedWhole + 200), (1, 8 * LiveBackend.matchesSortedWhole)])
    func aSearchOfManyMatchesWalksTheListInOrderAndCountsTheOwnersOnly(owners: Int, count: Int) async throws {
        let database = try Database(path: folder.file("many.sqlite"), migrations: AppSchema.migrations)
        let live = AppEnvironment.live(
            database: database, configuration: LiveConfiguration(passwordIterations: 1_000, searchIndexPace: .seconds(3_600)), clock: TestClock())
        var tokens: [AccessToken] = []
        for name in ["alice.liddell", "bob.builder"] {
            let credentials = Credentials(username: Username(name), password: "wonderland")
            _ = try await live.auth.signUp(credentials)
            tokens.append(try await live.auth.authenticate(credentials).token)
        }
        // More matches than a page is sorted from whole (every owner's), most of them Alice's.
        for number in 0..<count {
            let text = number % 7 == 0 ? "common and rare" : "common"
            let note = Note(
                id: Note.ID(UUID(sequence: UInt64(number + 1))), text: text, createdAt: Date(timeIntervalSince1970: 1_800_000_000 + Double(number / 2)))
            _ = try await live.notes.create(owners == 2 && number % 10 == 0 ? tokens[1] : tokens[0], note)
        }
        try SearchIndex.indexAll(in: database)
        // Edited since: its index row holds its old text, and it is read and matched directly.
        var edited = try await live.notes.page(tokens[0], "", after: nil, limit: 1).notes[0]
        edited.text = "rare now"
        _ = try await live.notes.update(tokens[0], edited)
        // Written since the index's progress: read and matched directly.
        _ = try await live.notes.create(
            tokens[0], Note(id: Note.ID(UUID(sequence: 9_999)), text: "common, new", createdAt: Date(timeIntervalSince1970: 1_900_000_000)))
        for query in ["common", "rare", "common rare", "and"] {
            let whole = try await live.notes.search(tokens[0], query)
            let paged = try await pages(live.notes, tokens[0], query, size: 50)
            #expect(paged.notes == whole, "“\(query)”")
            #expect(paged.totals == [whole.count], "“\(query)”")
        }
    }

    /// Notes written while nothing indexed them (an import by a process that never searched)
    /// are indexed once their owner signs in, without waiting for a search to scan them.
    @Test func signingInIndexesTheNotesNothingIndexedYet() async throws {
        let credentials = Credentials(username: "alice.liddell", password: "wonderland")
        let path = folder.file("imported.sqlite")
        let importing = try Database(path: path, migrations: AppSchema.migrations)
        let importer = AppEnvironment.live(
            database: importing, configuration: LiveConfiguration(passwordIterations: 1_000, searchIndexPace: .seconds(3_600)), clock: TestClock())
        _ = try await importer.auth.signUp(credentials)
        let token = try await importer.auth.authenticate(credentials).token
        for number in 1...300 {
            _ = try await importer.notes.create(token, Note(id: Note.ID(UUID(sequence: UInt64(number))), text: "imported \(number)", createdAt: Date()))
        }
        importing.close()
        let database = try Database(path: path, migrations: AppSchema.migrations)
        defer { database.close() }
        let unindexed = { @Sendable in
            (try? database.read { db throws(DatabaseError) in
                try db.query("SELECT count(*) FROM notes WHERE change_sequence > \(SearchIndex.progressOfNotesOwner)") { $0.int(0) }.first ?? 0
            }) ?? -1
        }
        #expect(unindexed() == 300)
        let live = AppEnvironment.live(database: database, configuration: .testing, clock: TestClock())
        _ = try await live.auth.authenticate(credentials)
        #expect(await eventually { unindexed() == 0 }, "\(unindexed()) notes still not indexed")
        withExtendedLifetime(live) {}
    }

    @Test func version15IndexesAgainTheNotesAnIndexReadOnlyUpToANul() async throws {
        let credentials = Credentials(username: "alice.liddell", password: "wonderland")
        let path = folder.file("v14.sqlite")
        let configuration = LiveConfiguration(passwordIterations: 1_000, searchIndexPace: .seconds(3_600))
        let old = try Database(path: path, migrations: Array(AppSchema.migrations.prefix(14)))
        let live = AppEnvironment.live(database: old, configuration: configuration, clock: TestClock())
        _ = try await live.auth.signUp(credentials)
        let token = try await live.auth.authenticate(credentials).token
        let note = Note(id: Note.ID(UUID(sequence: 1)), text: "before\u{0}afterword", createdAt: Date(timeIntervalSince1970: 1_800_000_000))
        _ = try await live.notes.create(token, note)
        try SearchIndex.indexAll(in: old)
        // As version 14 indexed it: the text with its NUL, which the index reads only up to it.
        try old.write { db throws(DatabaseError) in
            let row = try db.query("SELECT search_rowid FROM notes") { $0.int(0) }.first ?? 0
            try SearchIndex.remove(row: row, in: db)
            try db.execute("INSERT INTO notes_search (rowid, text) VALUES (?, ?)", [.int(row), .text(note.text)])
        }
        #expect(try await live.notes.search(token, "afterword").isEmpty, "the damage version 15 mends")
        old.close()
        let migrated = AppEnvironment.live(
            database: try Database(path: path, migrations: AppSchema.migrations), configuration: configuration, clock: TestClock())
        #expect(try await migrated.notes.search(token, "afterword").map(\.text) == [note.text])
    }

    /// A note as unlike a default one as can be: every field set, dates with fractions of a
    /// second, text on several lines in several scripts.
    static func unusualNote(_ sequence: UInt64, updated: TimeInterval) -> Note {
        Note(
            id: Note.ID(UUID(sequence: sequence)), text: "  first line\nsecond — ﬁn 🎉\n\ttabbed \"quoted\" '\u{301}'",
            createdAt: Date(timeIntervalSince1970: 1_700_000_000.125), updatedAt: Date(timeIntervalSince1970: updated))
    }

    /// A note with every field set (one added later too) is read back whole by each client,
    /// and a field one leaves out (a column missing from `NotesTable`) is named.
    @Test func aNoteWithEveryFieldSetIsReadBackWholeByEveryClient() async throws {
        var every = EveryField()
        every.use({ Note.ID(UUID(sequence: UInt64($0))) }, for: Note.ID.self)
        let note = try every.value(Note.self)
        let credentials = Credentials(username: "alice.liddell", password: "wonderland")
        let database = try Database(path: folder.file("every-field.sqlite"), migrations: AppSchema.migrations)
        defer { database.close() }
        for (name, environment) in [("in memory", AppEnvironment.inMemory()), ("live", .live(database: database, configuration: .testing, clock: TestClock()))]
        {
            _ = try await environment.auth.signUp(credentials)
            let token = try await environment.auth.authenticate(credentials).token
            let created = try await environment.notes.create(token, note)
            let listed = try #require(try await environment.notes.list(token).first)
            // The version is the store's to give.
            #expect(created.version != nil && listed.version == created.version)
            let fields = zip(Mirror(reflecting: note).children, Mirror(reflecting: listed).children)
            // A wrapped property's storage is labelled `_name`: name the property.
            let lost = fields.filter { $0.0.label != "version" && "\($0.0.value)" != "\($0.1.value)" }
                .compactMap { $0.0.label.map { $0.hasPrefix("_") ? String($0.dropFirst()) : $0 } }
            #expect(lost.isEmpty, "the \(name) client does not keep \(lost)")
        }
    }

    @Test func everyFieldOfANoteIsKeptAndListedInTheSameOrderByEveryClient() async throws {
        func unversioned(_ note: Note) -> Note {
            var note = note
            note.version = nil
            return note
        }
        let credentials = Credentials(username: "alice.liddell", password: "wonderland")
        let database = try Database(path: folder.file("fields.sqlite"), migrations: AppSchema.migrations)
        var listings: [[Note]] = []
        for environment in [AppEnvironment.inMemory(), .live(database: database, configuration: .testing, clock: TestClock())] {
            _ = try await environment.auth.signUp(credentials)
            let token = try await environment.auth.authenticate(credentials).token
            // Three notes changed at the same instant (ordered by id) and one later.
            let notes = [
                Self.unusualNote(7, updated: 1_800_000_000.5), Self.unusualNote(0x30, updated: 1_800_000_000.5),
                Self.unusualNote(2, updated: 1_800_000_000.5), Self.unusualNote(5, updated: 1_800_000_100.25),
            ]
            var stored: [Note] = []
            for note in notes {
                stored.append(try await environment.notes.create(token, note))
                #expect(unversioned(stored.last ?? note) == note && stored.last?.version != nil)
            }
            var edited = stored[2]
            edited.text = "edited\nagain"
            edited.updatedAt = Date(timeIntervalSince1970: 1_800_000_200.75)
            let updated = try await environment.notes.update(token, edited)
            #expect(unversioned(updated) == unversioned(edited) && updated.version ?? 0 > edited.version ?? 0)
            let listed = try await environment.notes.list(token)
            #expect(Set(listed) == Set(stored.dropLast(2) + [stored[3], updated]), "every field read back as written")
            #expect(listed == listed.sorted { $0.isListed(before: $1) }, "listed in Note's order")
            listings.append(listed)
        }
        #expect(listings[0] == listings[1], "in memory and on a database alike")
    }
}

/// What a search and an indexing batch read: the index's matches and the notes not indexed yet,
/// never every note of the owner (which SQLite, without statistics, would otherwise choose).
@Suite("Search query plans")
struct SearchQueryPlanTests {
    @Test func aSearchReadsWhatItFindsNotEveryNote() throws {
        let database = try Database.inMemory(migrations: AppSchema.migrations)
        let statements = [
            LiveBackend.indexedMatches(LiveBackend.indexCondition(["milk", "ab"]).0), LiveBackend.unindexedNotes, SearchIndex.notesToIndex,
            LiveBackend.indexedMatchIDs(LiveBackend.indexCondition(["milk", "ab"]).0),
        ]
        for sql in statements {
            let plan = try database.read { db throws(DatabaseError) in
                try db.query("EXPLAIN QUERY PLAN " + sql, Array(repeating: .text("x"), count: sql.count { $0 == "?" })) { $0.text(3) }
            }
            #expect(plan.allSatisfy { !$0.hasPrefix("SCAN notes ") && !$0.contains(" notes USING PRIMARY KEY") }, "\(sql): \(plan)")
            #expect(plan.contains { $0.contains("notes_by_search_row") || $0.contains("notes_by_change") }, "\(sql): \(plan)")
        }
    }

    @Test func theMatchesOfAHolderAreReadFromTheIndexAlone() throws {
        let database = try Database.inMemory(migrations: AppSchema.migrations)
        let sql = LiveBackend.indexedMatchIDs(LiveBackend.indexCondition(["milk"]).0)
        let plan = try database.read { db throws(DatabaseError) in
            try db.query("EXPLAIN QUERY PLAN " + sql, [.text("x"), .text("x")]) { $0.text(3) }
        }
        #expect(plan.contains { $0.contains("USING COVERING INDEX notes_by_search_row") }, "\(plan)")
    }
}
