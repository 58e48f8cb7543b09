import AppEnvironment
import Console
import Foundation
import Models
import Reducers
import StateStore
import Testing

/// The console with real data sizes: ten thousand notes listed a page at a time, changes shown
/// row by row, ids told apart however many share their last digits, history within its limits.
@Suite("Console at scale")
struct ConsoleScaleTests {
    /// A console signed in on the in-memory clients whose notes are `ids` (newest first),
    /// built as a restored state so the test does not type ten thousand commands.
    func console(notes ids: [UInt64], historyLimits: Timeline<AppFeature.State, AppFeature.Action>.Limits = .init()) async throws -> ConsoleSession {
        let signIn = try await ConsoleSession.scripted()
        for line in ["signup alice.liddell wonderland", "login.username alice.liddell", "login.password wonderland", "login.submit"] {
            _ = await signIn.execute(line)
        }
        var state = signIn.store.currentState
        let date = Date(timeIntervalSince1970: 1_800_000_000)
        state.user?.notes.items = IdentifiedArray(
            uniqueElements: ids.map {
                Notes.Item(note: Note(id: Note.ID(UUID(sequence: $0)), text: "note \($0)\nwith a second line", createdAt: date))
            })
        // Held whole, as a state from before pages: no count of the store's, nothing trimmed.
        state.user?.notes.listTotal = nil
        var options = AppHost.Options(testClock: signIn.host.testClock, history: historyLimits, initialState: state)
        options.clients = signIn.host.environment
        return ConsoleSession(host: try await AppHost(storage: .inMemory(), options: options))
    }

    /// Ten thousand ids, newest first, clear of the ones the in-memory clients hand out.
    static let tenThousand = Array((1_000_001...1_010_000).reversed()) as [UInt64]

    @Test func tenThousandNotesArePagedAndCountedInFull() async throws {
        let console = try await console(notes: Self.tenThousand)
        let page = await console.execute("view notes")
        let lines = page.output.split(separator: "\n")
        #expect(lines.first == "notes: 10,000 notes")
        #expect(lines.count == 22, "the header, a page of 20 rows and what is left")
        #expect(lines[1] == "    6950  note 1010000 — with a second line  (2027-01-15 08:00 UTC)")
        #expect(lines.last == "    … and 9,980 more (view notes --all lists every note)")

        let all = await console.execute("view notes --all")
        let rows = all.output.split(separator: "\n").dropFirst()
        #expect(rows.count == 10_000)
        #expect(Set(rows.map { $0.split(separator: " ").first ?? "" }).count == 10_000, "every row has its own short id")
        #expect(rows.last?.hasPrefix("    4241  note 1000001 ") == true)

        #expect(await console.execute("expect notes.count == 10000").succeeded)
        #expect(await console.execute("expect notes.rows == \"10000 items\"").succeeded)
        let option = await console.execute("view notes --everything")
        #expect(option.status == .error("argument 2 at column 12: unknown option “--everything” (only --all, which lists every note)"))
    }

    @Test func aCommandShowsTheRowsItChangedAndTheCount() async throws {
        let console = try await console(notes: Self.tenThousand)
        let added = await console.execute("notes.add \"one more\"")
        #expect(added.succeeded)
        #expect(
            added.output.split(separator: "\n").map(String.init) == [
                "notes: 10,001 notes",
                "  * 0003  one more  (2027-01-15 08:00 UTC)",
            ])
        let selected = await console.execute("notes.select 55c8")
        #expect(
            selected.output.split(separator: "\n").map(String.init) == [
                "notes: 10,001 notes",
                "  * 55c8  note 1005000 — with a second line  (2027-01-15 08:00 UTC)",
                "    0003  one more  (2027-01-15 08:00 UTC)",
                "  open 55c8: note 1005000 ⏎ with a second line",
            ])
        let deleted = await console.execute("notes.delete 55C8")
        #expect(
            deleted.output.split(separator: "\n").map(String.init) == [
                "notes: 10,000 notes",
                "  - 55c8  note 1005000  (deleted)",
            ])
        #expect(await console.execute("expect notes.count == 10000").succeeded)
    }

    @Test func idsSharingTheirLastDigitsGetLongerShortIDs() async throws {
        // 0x3, 0x10003 and 0x210003 share their last four digits, 0x3 and 0x10003 their last five
        // (00003), 0x10003 and 0x210003 theirs (10003).
        let console = try await console(notes: [0x21_0003, 0x1_0003, 0x3, 0x4])
        let page = await console.execute("view notes")
        #expect(
            page.output.split(separator: "\n").dropFirst().map { String($0.dropFirst(4).prefix { $0 != " " }) }
                == ["210003", "010003", "00003", "0004"])
        #expect(
            await console.execute("notes.select 0003").status
                == .error("argument 1 [id] at column 14: “0003” matches 3 notes; type more of the id"))
        #expect(await console.execute("notes.select 00003").succeeded)
        #expect(await console.execute("expect notes.selectedText contains \"note 3\"").succeeded)
        #expect(await console.execute("notes.select 00000000-0000-0000-0000-000000010003").succeeded, "a full id, hyphens and all")
        #expect(await console.execute("expect notes.selectedText contains \"note 65539\"").succeeded)
        #expect(
            await console.execute("notes.select 000000000000").status
                == .error("argument 1 [id] at column 14: “000000000000” matches 4 notes; type more of the id"), "a start every id has")
        #expect(
            await console.execute("notes.select 12g4").status
                == .error("argument 1 [id] at column 14: there is no note with id “12g4” (view notes lists them)"))
    }

    @Test func historyKeepsWithinItsLimitsAndSaysWhatWasDropped() async throws {
        let console = try await console(notes: [1, 2], historyLimits: .init(entries: 50))
        for _ in 0..<120 { _ = await console.execute("counter.increment") }
        let history = await console.execute("history")
        #expect(history.output.split(separator: "\n").count == 50)
        let dropped = await console.execute("jump 3")
        #expect(
            dropped.status
                == .rejected("entry 3 is no longer kept: the timeline keeps at most 50 entries and 64 MiB, and drops the oldest (entries 71…120 are available)")
        )
        #expect(await console.execute("jump 71").succeeded)
        #expect(await console.execute("expect counter.count == 71").succeeded)
        #expect(await console.execute("undo").status == .rejected("nothing to undo"))
    }
}
