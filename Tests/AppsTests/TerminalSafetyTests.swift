import Foundation
import Persistence
import StateStore
import TestSupport
import Testing

/// Stored text is data, never terminal control: a note another process wrote with escape
/// sequences and bidi controls reaches every path that prints to a terminal made visible, and
/// every path that carries data (JSON) exact.
@Suite("Text from data never acts on a terminal")
struct TerminalSafetyTests {
    /// A note that would retitle the window, clear the screen, colour the text, reorder it and
    /// return the cursor, were it sent raw.
    static let hostile = "milk\u{1B}]0;pwned\u{07}\u{1B}[2J\u{1B}[31mred\u{202E}txet\r\u{9B}31m"
    /// What must never reach a terminal.
    static let raw = ["\u{1B}]0;pwned", "\u{1B}[2J", "\u{1B}[31m", "\u{202E}", "\u{9B}", "\u{07}", "\r"]
    /// How its title (up to the carriage return, which ends a line) is shown.
    static let shown = #"milk\e]0;pwned\u{7}\e[2J\e[31mred\u{202E}txet"#

    static func signIn(signingUp: Bool) -> [String] {
        (signingUp ? [#"{"signUp":{"username":"alice.liddell","password":"wonderland"}}"#] : []) + [
            #"{"typeUsername":{"username":"alice.liddell"}}"#, #"{"typePassword":{"password":"wonderland"}}"#, #"{"signIn":{}}"#,
        ]
    }

    /// A database whose account holds the hostile note, written by `appcore-serve`, whose reply
    /// keeps the exact text.
    static func databaseWithHostileNote() async throws -> (TemporaryFolder, String) {
        let (folder, path) = try SignalTests.databaseFolder("appcore-terminal")
        let serve = try ConflictTests.Serve(path, folder: folder.path)
        let encoded = String(decoding: try JSONEncoder().encode(["addNote": ["text": hostile]]), as: UTF8.self)
        let replies = try await serve.perform(signIn(signingUp: true) + [encoded])
        let rows = ((replies.last?["screens"] as? [String: Any])?["notes"] as? [String: Any])?["rows"] as? [String: Any]
        let row = ((rows?["changes"] as? [String: Any])?["upserted"] as? [[String: Any]])?.first?["row"] as? [String: Any]
        #expect(row?["title"] as? String == hostile.split(separator: "\r").first.map(String.init), "JSON keeps the exact text")
        _ = try await serve.driven.end(with: SIGTERM)
        return (folder, path)
    }

    /// Expects none of `raw` in `printed` (but a carriage return, with `onTerminal`: the line
    /// editor redraws with it).
    static func expectNothingRaw(_ printed: String, _ path: String, onTerminal: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) {
        for sequence in raw where !(onTerminal && sequence == "\r") {
            #expect(
                !printed.contains(sequence), "\(path) printed \(sequence.unicodeScalars.map { String($0.value, radix: 16) }) raw",
                sourceLocation: sourceLocation)
        }
    }

    @Test func theBatchTranscriptAndItsJSONShowItVisibly() async throws {
        let (folder, path) = try await Self.databaseWithHostileNote()
        // `wait`: a sign in on a loaded machine can outlast the 5 s a line waits for its effects.
        let lines = ["login.username alice.liddell", "login.password wonderland", "login.submit", "wait 120s", "view notes", "notes.search \"\u{1B}[2J\""]
        let script = folder.path + "/view.script"
        try lines.joined(separator: "\n").write(toFile: script, atomically: true, encoding: .utf8)
        let transcript = try await BatchTests.batch(["--env", "live", "--db", path, script])
        Self.expectNothingRaw(transcript.output + transcript.errors, "the transcript")
        #expect(transcript.output.contains(Self.shown), "\(transcript.output)")
        #expect(transcript.output.contains(#"> notes.search "\e[2J""#), "the echoed line too")

        let json = try await BatchTests.batch(["--json", "--env", "live", "--db", path, script])
        let outputs = try json.output.split(separator: "\n").dropLast().map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])["output"] as? String ?? ""
        }
        #expect(outputs.contains { $0.contains(Self.shown) }, "--json's output is the transcript's text: \(outputs)")
        Self.expectNothingRaw(outputs.joined(), "--json's output")
    }

    @Test func aPipedREPLShowsItVisibly() async throws {
        let (folder, path) = try await Self.databaseWithHostileNote()
        let printed = try await REPLTests.runPiped(
            ["--db", path],
            input: "login.username alice.liddell\nlogin.password wonderland\nlogin.submit\nwait 120s\nview notes --all\nnotes.bogus \u{1B}[2J\n",
            environment: ["HOME": folder.path])
        Self.expectNothingRaw(printed, "the piped REPL")
        #expect(printed.contains(Self.shown), "\(printed)")
    }

    @Test func anIdleREPLShowsANoteAnotherProcessAddsVisibly() async throws {
        let (folder, path) = try SignalTests.databaseFolder("appcore-terminal-idle")
        let serve = try ConflictTests.Serve(path, folder: folder.path)
        _ = try await serve.perform(Self.signIn(signingUp: true))
        let repl = try REPLTests.PTYProcess(
            arguments: ["--db", path], environment: ["NO_COLOR": "1", "TERM": "xterm", "XDG_DATA_HOME": folder.path])
        #expect(await repl.waitFor("appcore> "))
        repl.type("login.username alice.liddell\r")
        repl.type("login.password wonderland\r")
        repl.type("login.submit\r")
        #expect(await repl.waitFor("session: signed in as alice.liddell"))
        let mark = repl.text.count
        let encoded = String(decoding: try JSONEncoder().encode(["addNote": ["text": Self.hostile]]), as: UTF8.self)
        _ = try await serve.perform([encoded])
        // The REPL, idle at its prompt, prints the note the other process added.
        #expect(await repl.waitFor("milk", after: mark), "\(repl.text.dropFirst(mark))")
        #expect(await repl.waitFor(Self.shown, after: mark), "\(repl.text.dropFirst(mark))")
        Self.expectNothingRaw(String(repl.text.dropFirst(mark)), "the idle REPL", onTerminal: true)
        await repl.typeAndWaitForExit("quit\r")
        _ = try await serve.driven.end(with: SIGTERM)
    }

    @Test func theReplayOfAJournalShowsItVisibly() async throws {
        let (folder, path) = try await Self.databaseWithHostileNote()
        // A journal whose state holds the note: a REPL that listed it, then quit.
        _ = try await REPLTests.runPiped(
            ["--db", path], input: "login.username alice.liddell\nlogin.password wonderland\nlogin.submit\nwait 120s\nnotes.select @1\n",
            environment: ["HOME": folder.path])
        let replay = try await BatchTests.batch(["--replay-journal", "--db", path])
        Self.expectNothingRaw(replay.output, "--replay-journal")
    }

    @Test func controlsAreShownAndEverythingElseIsLeftAsItIs() {
        #expect(TerminalText.visible("plain text, naïve café 🎉\nsecond line\tafter a tab") == "plain text, naïve café 🎉\nsecond line\tafter a tab")
        #expect(TerminalText.visible(Self.hostile) == Self.shown + #"\r\u{9B}31m"#)
        #expect(
            TerminalText.visible("\u{0}\u{7F}\u{85}\u{61C}\u{200E}\u{200F}\u{202A}\u{2066}\u{2069}")
                == #"\u{0}\u{7F}\u{85}\u{61C}\u{200E}\u{200F}\u{202A}\u{2066}\u{2069}"#)
        // Neighbours of the controls are text: a no-break space, an en dash, a zero-width joiner.
        #expect(TerminalText.visible("\u{A0}\u{2013}\u{200D}") == "\u{A0}\u{2013}\u{200D}")
    }
}
