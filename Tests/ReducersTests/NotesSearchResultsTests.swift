import AppEnvironment
import Foundation
import Models
import Reducers
import StateStore
import Testing

@Suite("Notes search results")
struct NotesSearchResultsTests {
    /// 40 notes listed newest first, as `Notes.State` keeps them.
    let listed = IdentifiedArray(
        uniqueElements: (1...40).map { Notes.Item(note: note(UInt64($0), "note \($0)", updated: TimeInterval($0))) }
            .sorted { $0.note.isListed(before: $1.note) })

    /// What the results must be: every match the list holds (as it holds it) or the client gave,
    /// sorted the way the list sorts.
    func expected(_ matches: NoteMatches) -> [Note.ID] {
        let given = Dictionary(matches.notes.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        return matches.ids.compactMap { listed[id: $0]?.note ?? given[$0] }.sorted { $0.isListed(before: $1) }.map(\.id)
    }

    @Test(arguments: [[3, 17, 8], Array(2...35)])
    func matchesComeInTheListsOrderWithTheUnlistedOnesInTheirPlace(numbers: [Int]) {
        // Shuffled ids as a client gives them, two notes the list lacks (one newer than every
        // listed note, one between listed ones), an id given twice, one neither listed nor given.
        let newest = note(100, "newest", updated: 1_000)
        let between = note(101, "between", updated: 20.5)
        let gone = note(102, "gone").id
        let ids = numbers.reversed().map { listed[$0 - 1].id } + [between.id, newest.id, gone]
        let matches = NoteMatches(ids: ids, notes: [between, newest, between])
        let results = Notes.SearchResults(matches, listed: listed)
        #expect(results.ids == expected(matches))
        #expect(results.ids.first == newest.id)
        #expect(results.ids.contains(between.id) && !results.ids.contains(gone))
        #expect(Set(results.ids).count == results.ids.count)
    }
}
