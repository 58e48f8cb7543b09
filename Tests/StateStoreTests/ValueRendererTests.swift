import Foundation
import StateStore
import Testing

@Suite("Value rendering and diffs")
struct ValueRendererTests {
    struct Note: Equatable, Identifiable {
        let id: Int
        var text: String
        var tags: Set<String> = []
    }

    struct AppState: Equatable {
        var count = 0
        var name: String? = nil
        var notes: IdentifiedArray<Note> = []
        var settings: [String: Int] = [:]
        var token = "secret-token"
        var mode = Mode.idle
    }

    enum Mode: Equatable { case idle, busy(since: Int) }

    @Test func oneLineReadsLikeSwift() {
        let state = AppState(count: 2, name: "a\"b", notes: [Note(id: 1, text: "milk")], settings: ["b": 2, "a": 1])
        #expect(
            ValueRenderer.oneLine(state) == """
                AppState(count: 2, name: "a\\"b", notes: [Note(id: 1, text: "milk", tags: [])], \
                settings: [\"a\": 1, \"b\": 2], token: <redacted>, mode: Mode.idle)
                """)
        #expect(ValueRenderer.oneLine(Mode.busy(since: 3)) == "Mode.busy(since: 3)")
        #expect(ValueRenderer.oneLine(Optional<Int>.none as Any) == "nil")
        #expect(ValueRenderer.oneLine("line\nbreak") == "\"line\\nbreak\"")
    }

    @Test func redactionByLabelCanBeTurnedOffOrExtended() {
        struct Form { var pin = "1234"; var token = "t" }
        #expect(ValueRenderer.oneLine(Form(), redaction: .secretTypesOnly) == "Form(pin: \"1234\", token: \"t\")")
        #expect(ValueRenderer.oneLine(Form(), redaction: Redaction(labelFragments: ["PIN"])) == "Form(pin: <redacted>, token: \"t\")")
    }

    @Test func aDiffListsOnlyWhatDiffers() {
        var old = AppState()
        for id in 0..<1_000 { old.notes.append(Note(id: id, text: "note \(id)")) }
        var new = old
        new.count = 1
        new.notes[id: 500]?.text = "changed"
        new.mode = .busy(since: 7)
        let diff = ValueDiff(old: old, new: new)
        #expect(
            diff.changes == [
                ValueDiff.Change(path: ".count", old: "0", new: "1"),
                ValueDiff.Change(path: ".notes[id: 500].text", old: "\"note 500\"", new: "\"changed\""),
                ValueDiff.Change(path: ".mode", old: "Mode.idle", new: "Mode.busy(since: 7)"),
            ])
        #expect(
            diff.description == """
                .count
                  − 0
                  + 1
                .notes[id: 500].text
                  − "note 500"
                  + "changed"
                .mode
                  − Mode.idle
                  + Mode.busy(since: 7)
                """)
    }

    @Test func aDiffShowsAddedAndRemovedElementsAndKeys() {
        let diff = ValueDiff(old: (list: [1, 2, 3], map: ["a": 1]), new: (list: [1, 2], map: ["a": 1, "b": 2]))
        #expect(
            diff.changes == [
                ValueDiff.Change(path: ".list[2]", old: "3", new: nil),
                ValueDiff.Change(path: ".map[\"b\"]", old: nil, new: "2"),
            ])
    }

    @Test func aDiffNeverShowsSecrets() {
        let diff = ValueDiff(old: AppState(token: "old-secret"), new: AppState(token: "new-secret"))
        #expect(diff.changes == [ValueDiff.Change(path: ".token", old: "<redacted>", new: "<redacted>")])
    }

    @Test func equalValuesHaveAnEmptyDiff() {
        #expect(ValueDiff(old: AppState(), new: AppState()).isEmpty)
    }
}

@Suite("ValueRenderer limits")
struct ValueRendererLimitTests {
    struct Note: Equatable { let id: Int; var text: String }
    enum Action { case listResponse([Note]) }

    @Test func aLongValueIsCut() {
        let notes = (0..<100_000).map { Note(id: $0, text: "note \($0)") }
        let line = ValueRenderer.oneLine(Action.listResponse(notes), limit: 200)
        #expect(line.hasPrefix("Action.listResponse([Note(id: 0, text: \"note 0\"), Note(id: 1, "))
        #expect(line.hasSuffix("…") && line.count <= 201)
        #expect(ValueRenderer.oneLine([1, 2, 3]) == "[1, 2, 3]", "short values are whole")
    }

    @Test func anElementInsertedAtTheTopIsOneChange() {
        var old = ValueRendererTests.AppState()
        for id in 0..<1_000 { old.notes.append(ValueRendererTests.Note(id: id, text: "note \(id)")) }
        var new = old
        new.notes.insert(ValueRendererTests.Note(id: -1, text: "first"), at: 0)
        new.notes.remove(id: 7)
        #expect(
            ValueDiff(old: old, new: new).changes == [
                ValueDiff.Change(path: ".notes[id: -1]", old: nil, new: "Note(id: -1, text: \"first\", tags: [])"),
                ValueDiff.Change(path: ".notes[id: 7]", old: "Note(id: 7, text: \"note 7\", tags: [])", new: nil),
            ])
    }
}
