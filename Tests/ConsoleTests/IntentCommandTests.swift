import Foundation
import Models
import Testing

@testable import Console

/// The line language is derived from ``Intent``: every kind of intent has a command, and the
/// line written for an intent reads back as that same intent.
@Suite("Intents as commands")
struct IntentCommandTests {
    @Test func everyIntentIsWrittenAsALineThatReadsBackAsItself() async throws {
        let console = try await ConsoleSession.scripted()
        for line in ["signup alice.liddell wonderland", "login.username alice.liddell", "login.password wonderland", "login.submit", "notes.add milk"] {
            #expect(await console.execute(line).succeeded, "\(line)")
        }
        let note = try #require(console.store.currentState.notes.visibleItems.first?.id)
        for kind in Intent.Kind.allCases {
            for intent in examples(of: kind, note: note) {
                for position in [nil, 1] as [Int?] {
                    let line = CommandSpec.line(for: intent, notePosition: position)
                    let parsed = try #require(try ParsedLine.parse(line), "\(line)")
                    #expect(parsed.spec.command == .intent(kind), "\(line)")
                    #expect(try console.intent(kind, parsed) == intent, "\(line)")
                }
            }
        }
        #expect(Set(CommandSpec.all.map(\.name)).count == CommandSpec.all.count, "command names are unique")
    }

    @Test func aSearchWithoutItsQueryListsEveryNoteAgain() async throws {
        #expect(CommandSpec.of(.searchNotes).usage == "notes.search [query]")
        #expect(CommandSpec.of(.typeNotesSearch).usage == "notes.type-search [query]")
        let console = try await ConsoleSession.scripted()
        for line in [
            "signup alice.liddell wonderland", "login.username alice.liddell", "login.password wonderland", "login.submit", "notes.add milk",
            "notes.add bread", "notes.search milk",
        ] {
            #expect(await console.execute(line).succeeded, "\(line)")
        }
        #expect(console.store.currentState.notes.visibleItems.map(\.note.text) == ["milk"])
        #expect(await console.execute("notes.search").succeeded)
        #expect(console.store.currentState.notes.visibleItems.map(\.note.text) == ["bread", "milk"])
        let typed = try #require(try ParsedLine.parse("notes.type-search"))
        #expect(try console.intent(.typeNotesSearch, typed) == .typeNotesSearch(query: ""))
    }

    @Test func argumentsAreTypedByWhatTheIntentTakes() throws {
        let edit = CommandSpec.of(.editNote)
        #expect(edit.usage == "notes.edit <id> <text>")
        #expect(CommandSpec.of(.selectNote).usage == "notes.select [id]", "an optional note is an optional argument")
        #expect(CommandSpec.of(.signUp).secretArgument == 1 && CommandSpec.of(.typePassword).secretArgument == 0)
        #expect(CommandSpec.all.filter { $0.secretArgument != nil }.map(\.name) == ["signup", "login.password"])
        let line = CommandSpec.line(for: .signUp(username: "alice.liddell", password: "two words"))
        #expect(line == #"signup alice.liddell "two words""#)
        #expect(try ParsedLine.parse(line)?.redacted == "signup alice.liddell <redacted>")
    }

    /// Intents of `kind`, each argument filled as its parameter says (both ways for an optional).
    func examples(of kind: Intent.Kind, note: Note.ID) -> [Intent] {
        let choices: [[Intent.Argument]] = kind.parameters.reduce([[]]) { partial, parameter in
            let values: [Intent.Argument] =
                switch parameter.value {
                case .text: [.text("two words \"quoted\" # and more")]
                case .secret: [.text("wonderland")]
                case .note: [.note(note)]
                case .optionalNote: [.note(note), .note(nil)]
                }
            return partial.flatMap { prefix in values.map { prefix + [$0] } }
        }
        return choices.compactMap { Intent(kind, $0) }
    }
}
