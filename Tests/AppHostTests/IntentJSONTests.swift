import AppHost
import Foundation
import Testing

/// Intents read from JSON lines, as `appcore-serve` and any pipe front end read them: every
/// kind of bad line is refused with a message naming what is wrong, and never repeats the line.
@Suite("Intents from JSON lines")
struct IntentJSONTests {
    private func problem(_ line: String) -> String? {
        do {
            _ = try Intent(jsonLine: Array(line.utf8))
            return nil
        } catch {
            return error.description
        }
    }

    @Test func everyIntentReadsBackFromTheJSONItIsWrittenAs() throws {
        let id = Note.ID(UUID())
        let intents: [Intent] = [
            .signUp(username: "alice.liddell", password: "wonderland"), .signIn, .addNote(text: "milk \"2%\""),
            .editNote(id: id, text: "oat milk"), .selectNote(id: nil), .searchNotes(query: "milk"), .reloadNotes, .increment,
        ]
        for intent in intents {
            let line = try JSONEncoder().encode(intent)
            #expect(try Intent(jsonLine: Array(line)) == intent)
        }
        #expect(try Intent(jsonLine: Array(#"{"editNote":{"id":"\#(id)","text":"x"}}"#.utf8)) == .editNote(id: id, text: "x"))
    }

    @Test func aWellFormedLineIsReadDirectlyAsJSONDecoderReadsIt() throws {
        let id = Note.ID(UUID())
        let tricky = "quote \" backslash \\ slash / tab \t newline \n nul \u{0} é 中文 🥛 \u{2028}"
        var lines = Intent.Kind.allCases.map { kind -> String in
            let fields = kind.parameters.map { parameter in
                "\"\(parameter.label)\":" + (parameter.value == .note || parameter.value == .optionalNote ? "\"\(id)\"" : "\"text\"")
            }
            return "{\"\(kind.rawValue)\":{\(fields.joined(separator: ","))}}"
        }
        lines += [
            try String(decoding: JSONEncoder().encode(Intent.addNote(text: tricky)), as: UTF8.self),
            #"  { "addNote" : { "text" : "spaced" } }  "#, #"{"selectNote":{"id":null}}"#, #"{"selectNote":{}}"#,
            #"{"addNote":{"text":"\u00e9\ud83e\udd5b\/"}}"#, #"{"editNote":{"text":"x","id":"\#(id.description.uppercased())"}}"#,
        ]
        for line in lines {
            let expected = try JSONDecoder().decode(Intent.self, from: Data(line.utf8))
            #expect(Intent.readDirectly(Array(line.utf8)) == expected, "\(line)")
            #expect(try Intent(jsonLine: Array(line.utf8)) == expected)
        }
        // Left to Foundation (which reads some of them, and says what is wrong with the others).
        for line in [
            #"{"addNote":{"text":42}}"#, #"{"addNote":{"text":"a","text":"b"}}"#, #"{"addNote":{"text":"a","extra":1}}"#,
            #"{"addNote":{"text":"\ud800"}}"#, #"{"addNote":{}}"#, #"{"frobnicate":{}}"#, #"{"increment":{}} x"#, #"{"addNote":{"text":"a\x"}}"#,
        ] {
            #expect(Intent.readDirectly(Array(line.utf8)) == nil, "\(line)")
        }
    }

    @Test func eachKindOfBadLineGetsAMessageNamingWhatIsWrong() {
        #expect(problem(#"{"increment":"#) == "it is not valid JSON (it ends too soon)")
        #expect(problem("not json")?.hasPrefix("it is not valid JSON") == true)
        #expect(problem(#"["increment"]"#) == #"an intent is a JSON object with one key, the intent's name: {"increment":{}}"#)
        #expect(problem("42") == #"an intent is a JSON object with one key, the intent's name: {"increment":{}}"#)
        #expect(problem(#"{"increment":{},"reset":{}}"#) == "an intent is a JSON object with exactly one key, the intent's name; this one has 2")
        #expect(problem("{}") == "an intent is a JSON object with exactly one key, the intent's name; this one has 0")
        #expect(problem(#"{"frobnicate":{}}"#) == "there is no intent “frobnicate”")
        #expect(problem(#"{"signUp":{"username":"alice.liddell"}}"#) == "“signUp” needs the field “password”")
        #expect(problem(#"{"addNote":{"text":42}}"#) == "the field “addNote.text” must be a string")
        #expect(problem(#"{"addNote":{"text":null}}"#) == "the field “addNote.text” must be a string")
        #expect(problem(#"{"editNote":{"id":"not-a-uuid","text":"x"}}"#) == "the field “editNote.id” has a value that is not valid there")
    }

    @Test func aNameThatDoesNotLookLikeOneIsNotShown() {
        let odd = problem(#"{"<script>alert(1)</script>":{}}"#)
        #expect(odd == "there is no intent (its name is not shown)")
        #expect(problem(#"{"\#(String(repeating: "a", count: 41))":{}}"#) == "there is no intent (its name is not shown)")
    }

    @Test func aLineLongerThanTheLimitIsRefusedBeforeItIsParsed() {
        let text = String(repeating: "x", count: Intent.maximumJSONLength)
        #expect(
            problem(#"{"addNote":{"text":"\#(text)"}}"#)
                == "the line is longer than \(Intent.maximumJSONLength) bytes, the most an intent may have")
    }

    /// (A key is shown when it looks like a name, so that a misspelt intent is named: a key is
    /// not where a password goes.)
    @Test func aPasswordInABadLineIsNeverRepeated() {
        for line in [
            #"{"signUp":{"password":"wonderland"}}"#, #"{"signUp":{"username":7,"password":"wonderland"}}"#,
            #"{"typePassword":{"password":"wonderland""#, #"{"typePassword":{"password":["wonderland"]}}"#,
        ] {
            let message = problem(line)
            #expect(message != nil)
            #expect(message?.contains("wonderland") == false, "\(message ?? "")")
        }
    }
}
