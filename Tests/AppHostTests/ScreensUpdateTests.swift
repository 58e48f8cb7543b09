import AppHost
import Foundation
import Models
import Reducers
import TestSupport
import Testing
import ViewModels

/// Outcomes sent as what changed: a reader that applies each update holds exactly the screens,
/// and an update's size is the change's, whatever the number of notes.
@Suite("Screens updates")
struct ScreensUpdateTests {
    /// A front end that holds what each outcome's update gives it, checking after each intent
    /// that it holds exactly the first `rowLimit` rows.
    private final class Reader {
        let host: AppHost
        var shown: Screens?
        var rows: [NotesViewModel.Row] = []

        init() async throws {
            host = try await AppHost(storage: .inMemory())
            for intent in signingIn { await perform(intent) }
        }

        func perform(_ intent: Intent) async {
            let outcome = await host.perform(intent, timeout: patience)
            let update = outcome.update(since: shown)
            expectWrittenAsEncoded(update, "after \(intent)")
            if let notes = update.screens.notes { rows = notes.applied(to: rows) }
            #expect(update.screens.changed == shown.map { outcome.screens.changed(since: $0) } ?? Screen.allCases)
            shown = outcome.screens
            let notes = outcome.screens.notes
            #expect(rows == Array(notes.rows.prefix(notes.rowLimit)), "after \(intent)")
        }
    }

    @Test func anUpdateIsWrittenAsJSONEncoderWritesIt() async throws {
        var options = AppHost.Options()
        options.injectsFailures = true
        let host = try await AppHost(storage: .inMemory(), options: options)
        // Rejected, signed out: every screen to a reader that holds nothing.
        expectWrittenAsEncoded(await host.perform(.addNote(text: "milk"), timeout: patience).update(since: nil), "rejected")
        for intent in signingIn {
            expectWrittenAsEncoded(await host.perform(intent, timeout: patience).update(since: nil), "\(intent)")
        }
        // Every ASCII character (controls, quotes, backslash, slash) and some beyond, in a title,
        // a preview and the open note's text.
        let ascii = String(decoding: (0..<128).map { UInt8($0) }, as: UTF8.self)
        let text = "title \(ascii) é ß 中文 🥛 \u{2028}\u{2029}\nsecond line \(ascii)"
        let before = host.screens
        let added = await host.perform(.addNote(text: text), timeout: patience)
        expectWrittenAsEncoded(added.update(since: before), "a note of every character")
        expectWrittenAsEncoded(added.update(since: nil), "every screen")
        // A save that failed (its row's reason) and a list that failed (the screen's error).
        host.failures.failNext(.notesCreate)
        expectWrittenAsEncoded(await host.perform(.addNote(text: "unsaved"), timeout: patience).update(since: added.screens), "a failed save")
        host.failures.failNext(.notesList)
        expectWrittenAsEncoded(await host.perform(.reloadNotes, timeout: patience).update(since: nil), "a failed reload")
        let statuses: [IntentOutcome.Status] = [
            .completed, .rejected(reason: "no \"quotes\"\n"), .failed(reason: "disk/full\u{1}"), .timedOut(running: ["a", "b\\c"]), .timedOut(running: []),
        ]
        for status in statuses {
            let outcome = IntentOutcome(status: status, changed: added.changed, screens: added.screens)
            expectWrittenAsEncoded(outcome.update(since: before), "\(status)")
        }
    }

    @Test func aReaderApplyingEachUpdateHoldsExactlyTheRows() async throws {
        let reader = try await Reader()
        let host = reader.host
        func perform(_ intent: Intent) async { await reader.perform(intent) }
        // More notes than a page: the reader holds the first page, then a page more.
        for number in 0..<70 { await perform(.addNote(text: "note \(number)")) }
        #expect(reader.rows.count == Notes.pageSize)
        let rows = Array(host.screens.notes.rows)
        await perform(.editNote(id: rows[45].id, text: "edited, so it moves to the top from low in the page"))
        await perform(.deleteNote(id: rows[3].id))
        await perform(.selectNote(id: rows[20].id))
        await perform(.selectNote(id: rows[25].id))
        await perform(.searchNotes(query: "note 1"))
        await perform(.searchNotes(query: ""))
        await perform(.showMoreNotes)
        #expect(reader.rows.count == 69, "every note, once a page more was asked for")
        await perform(.addNote(text: "one more"))
        await perform(.increment)
        #expect(reader.rows.count == 70)
    }

    @Test func aReaderStaysExactThroughRandomChangesAroundThePageBoundary() async throws {
        let reader = try await Reader()
        let host = reader.host
        func perform(_ intent: Intent) async { await reader.perform(intent) }
        for number in 0..<130 { await perform(.addNote(text: "note \(number)")) }
        // A fixed sequence of pseudo-random moves (a linear congruential generator), most of them
        // around the page's last row: adds push rows out of the page, deletes pull them in, edits
        // move rows from anywhere to the top, and a page more takes rows in.
        var seed: UInt64 = 42
        func next(_ bound: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(bound))
        }
        for step in 0..<120 {
            let rows = Array(host.screens.notes.rows)
            let near = max(0, min(rows.count - 1, host.screens.notes.rowLimit - 5 + next(10)))
            let move = rows.isEmpty ? 0 : next(9)
            switch move {
            case 0, 1: await perform(.addNote(text: "added \(step)"))
            case 2, 3: await perform(.deleteNote(id: rows[near].id))
            case 4, 5: await perform(.editNote(id: rows[next(rows.count)].id, text: "edited \(step)"))
            case 6, 7: await perform(.selectNote(id: rows[near].id))
            default: await perform(.showMoreNotes)
            }
        }
        #expect(host.screens.notes.rowLimit > Notes.pageSize, "a page more was asked for on the way")
    }

    @Test func aReloadOfThousandsSendsThePageAndTheCount() async throws {
        let host = try await AppHost(storage: .inMemory())
        for intent in signingIn { _ = await host.perform(intent, timeout: patience) }
        for number in 0..<2_000 { _ = await host.perform(.addNote(text: "note \(number): remember the milk and the eggs"), timeout: patience) }
        for intent: Intent in [.reloadNotes, .searchNotes(query: "milk"), .searchNotes(query: "")] {
            let update = await host.perform(intent, timeout: patience).update(since: nil)
            guard case .all(let rows) = update.screens.notes?.rows else {
                Issue.record("\(intent): a reader that holds nothing gets the page whole")
                continue
            }
            #expect(rows.count == Notes.pageSize && update.screens.notes?.count == 2_000, "\(intent)")
            let bytes = try JSONEncoder().encode(update).count
            #expect(bytes <= 16_384, "\(intent): \(bytes) bytes")
        }
    }

    @Test func addingANoteToThousandsSendsItsRowsOnly() async throws {
        let host = try await AppHost(storage: .inMemory())
        for intent in signingIn { _ = await host.perform(intent, timeout: patience) }
        for number in 0..<2_000 { _ = await host.perform(.addNote(text: "note \(number)"), timeout: patience) }
        let before = host.screens
        let pushedOut = before.notes.rows.id(at: Notes.pageSize - 1)
        let outcome = await host.perform(.addNote(text: "one more"), timeout: patience)
        let update = outcome.update(since: before)
        guard case .changes(let upserted, let removed) = update.screens.notes?.rows else {
            Issue.record("an added note is a row change, not the whole list")
            return
        }
        // The new note on top, the one it took the selection from, and the row it pushed out
        // of the reader's page.
        #expect(upserted.map(\.at) == [0, 1] && removed == [pushedOut])
        #expect(update.screens.changed == [.notes])
        let bytes = try JSONEncoder().encode(update).count
        #expect(bytes < 4_096, "\(bytes) bytes for one row")
        // The whole outcome, for comparison, carries every row held: the page's, not the 2,001.
        #expect(try JSONEncoder().encode(outcome).count > 10 * bytes)
        #expect(outcome.screens.notes.rows.count <= Notes.pageSize + Notes.trimSlack + 1 && outcome.screens.notes.count == 2_001)
    }
}

/// The serve line's hand-written writer against the types' own encoding.
@Suite("Every field of an update")
struct UpdateFieldCoverageTests {
    /// Every field of an update set (one added later too), each case of its enums in turn:
    /// the line `appcore-serve` writes holds each, as `JSONEncoder` writes it.
    @Test func theServeLineWritesEveryFieldOfAnUpdate() throws {
        var every = EveryField()
        every.use({ Note.ID(UUID(sequence: UInt64($0))) }, for: Note.ID.self)
        every.use({ Post.ID(UUID(sequence: UInt64($0))) }, for: Post.ID.self)
        every.use({ _ in .loaded }, for: ProfileViewModel.Status.self)
        every.caseNames = EveryField.declaredCaseNames
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for variant in 0..<64 {
            let update = try every.value(IntentOutcome.Update.self, variant: variant)
            let encoded = String(decoding: try encoder.encode(update), as: UTF8.self)
            let written = try update.jsonLine()
            let missed = EveryField.differences(EveryField.json(written), EveryField.json(encoded))
            #expect(missed.isEmpty, "the serve line differs from the update's encoding at \(missed)")
            if missed.isEmpty { #expect(written == encoded, "the same fields, written otherwise") }
        }
    }
}

/// Signing up and in as the tests' user.
private let signingIn: [Intent] = [
    .signUp(username: "alice.liddell", password: "wonderland"), .typeUsername(username: "alice.liddell"),
    .typePassword(password: "wonderland"), .signIn,
]

/// `update.jsonLine()` is the text `JSONEncoder` writes for it with the options `appcore-serve` uses.
private func expectWrittenAsEncoded(_ update: IntentOutcome.Update, _ comment: Comment, sourceLocation: SourceLocation = #_sourceLocation) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    #expect(
        (try? update.jsonLine()) == (try? encoder.encode(update)).map { String(decoding: $0, as: UTF8.self) }, comment,
        sourceLocation: sourceLocation)
}
