import AppExploration
import AppHost
import Console
import Foundation
import Models
import Reducers
import Testing

/// The whole app explored through intents (what `appcore-batch --explore` runs).
@Suite("App exploration")
struct AppExplorerTests {
    @Test(arguments: LoginStyle.allCases)
    func theAppsInvariantsHoldForEveryLoginStyle(style: LoginStyle) async {
        let outcome = await AppExplorer(loginStyle: style, depth: 5).run()
        #expect(outcome.violatedInvariant == nil, "\(outcome)")
        #expect(outcome.summary.hasPrefix("explored "))
        #expect(outcome.statesVisited > 50, "\(outcome)")
        #expect(outcome.script.isEmpty)
    }

    @Test func aBrokenScreenInvariantComesWithTheShortestScriptThatBreaksIt() async throws {
        let outcome = await AppExplorer(
            depth: 6,
            invariants: [
                AppExplorer.Invariant("no note is ever left unsaved") { screens in !screens.notes.rows.contains { $0.isUnsaved } }
            ]
        ).run()
        #expect(outcome.violatedInvariant == "no note is ever left unsaved")
        // Sign in (three intents), then a note whose save fails: nothing shorter leaves one unsaved.
        #expect(outcome.counterexample.count == 4, "\(outcome)")
        #expect(
            outcome.script == [
                "signup explorer correct-horse",
                "login.username explorer",
                "login.password correct-horse",
                "login.submit",
                "fail notes.create",
                "! notes.add milk", // it fails, so the script expects it to
            ])
    }

    @Test func theScriptOfAMoveNamesItsNoteByPosition() {
        var state = AppFeature.State()
        state.user = SignedIn.State(session: AuthSession(user: User(id: User.ID(UUID(sequence: 1)), username: "explorer"), token: AccessToken("t")))
        state.user?.notes.items = [Notes.Item(note: Note(id: Note.ID(UUID(sequence: 7)), text: "milk", createdAt: Date(timeIntervalSince1970: 0)))]
        let edit = AppExplorer.moves(in: state).first { if case .editNote = $0.intent { true } else { false } }
        #expect(edit?.lines == ["notes.edit @1 \"oat milk\""])
        let failing = AppExplorer.moves(in: state).first { $0.failing == .notesCreate }
        #expect(failing?.lines == ["fail notes.create", "notes.add milk"])
    }
}
