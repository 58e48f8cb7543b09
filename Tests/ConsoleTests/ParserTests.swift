import Console
import Testing

@Suite("Line language")
struct ParserTests {
    func parse(_ line: String) throws -> ParsedLine? { try ParsedLine.parse(line) }

    func error(_ line: String) -> String {
        do {
            _ = try ParsedLine.parse(line)
            return "(accepted)"
        } catch {
            return error.message
        }
    }

    @Test func everyCommandParsesWithItsArguments() throws {
        for spec in CommandSpec.all {
            let arguments = spec.required.enumerated().map { "arg\($0.offset)" }
            let line = ([spec.name] + arguments).joined(separator: " ")
            let parsed = try #require(try parse(line))
            #expect(parsed.spec == spec)
            #expect(parsed.arguments.map(\.text) == arguments)
        }
    }

    @Test func quotesEscapesCommentsAndColumns() throws {
        let parsed = try #require(try parse(##"  notes.edit 0003 "say \"hi\" \\ now" # a comment"##))
        #expect(parsed.arguments.map(\.text) == ["0003", #"say "hi" \ now"#])
        #expect(parsed.arguments.map(\.column) == [14, 19])
        #expect(try parse("# only a comment") == nil)
        #expect(try parse("   ") == nil)
        #expect(try parse(##"notes.add "# not a comment""##)?.arguments.first?.text == "# not a comment")
        #expect(try parse(#"notes.search """#)?.arguments.first?.text == "")
        let rejected = try #require(try parse("! counter.decrement"))
        #expect(rejected.expectsRejection && rejected.spec.name == "counter.decrement")
    }

    @Test func badLinesSayWhatAndWhere() {
        #expect(error("notes.ad x") == "unknown command “notes.ad” at column 1; did you mean “notes.add” or “notes.ack”? (help lists every command)")
        #expect(error("logut").contains("did you mean “logout”"))
        #expect(error("frobnicate") == "unknown command “frobnicate” at column 1 (help lists every command)")
        #expect(
            error("notes.add buy milk")
                == "notes.add takes 1 argument (usage: notes.add <text>), got 2; the first extra one is “milk” at column 15 — put text with spaces in double quotes"
        )
        #expect(error("notes.edit 0003") == "notes.edit takes 2 arguments (usage: notes.edit <id> <text>), got 1")
        #expect(
            error("notes.search oat milk")
                == "notes.search takes at most 1 argument (usage: notes.search [query]), got 2; the first extra one is “milk” at column 18 — put text with spaces in double quotes"
        )
        #expect(error("fail a b c") == "fail takes 1 to 2 arguments (usage: fail <client.endpoint> [count]), got 3; the first extra one is “c” at column 10")
        #expect(error(#"notes.add "unclosed"#) == "the quote opened at column 11 is never closed")
        #expect(error(#"notes.add "bad \n escape""#) == #"unknown escape \n at column 16 (inside quotes only \" and \\ are escapes)"#)
        #expect(error("!") == "“!” must be followed by the command expected to be rejected")
    }

    @Test func secretsAreKnownAndRedacted() throws {
        let signup = try #require(try ParsedLine.parse(#"! signup "alice liddell" "white rabbit""#))
        #expect(signup.carriesSecret)
        #expect(signup.redacted == #"! signup "alice liddell" <redacted>"#)
        #expect(try ParsedLine.parse("login.password x")?.redacted == "login.password <redacted>")
        #expect(try ParsedLine.parse("login.username alice")?.carriesSecret == false)
        #expect(ParsedLine.mayBeKept("notes.add \"milk and eggs\""))
        #expect(!ParsedLine.mayBeKept("login.password hunter22"))
        #expect(!ParsedLine.mayBeKept("login.pasword hunter22"), "a misspelt command may still hold a password")
        #expect(!ParsedLine.mayBeKept(""))
    }

    @Test func aLineThatDoesNotReadShowsOnlyItsCommandsName() {
        // Typos of commands that take a password, and words run together, must not show it.
        let shown = [
            "login.pasword hunter22": "login.pasword <redacted>",
            "sigup alice hunter22": "sigup <redacted> <redacted>",
            "login.password=hunter22": "login.password<redacted>",
            "! login.pasword hunter22": "! login.pasword <redacted>",
            "notes.add \"hunter22": "notes.add <redacted>",
            "login.password hunter22": "login.password <redacted>",
            "notes.add milk": "notes.add milk",
        ]
        for (line, expected) in shown { #expect(ParsedLine.displayable(line) == expected, "\(line)") }
        for line in shown.keys {
            guard case .some(let error) = Result(catching: { () throws(LineError) in try ParsedLine.parse(line) }).failure else { continue }
            #expect(!error.message.contains("hunter22"), "\(line): \(error.message)")
        }
    }
}

@Test func durationsReadTheSameForTheLanguageAndTheShells() {
    #expect(DurationText.parse("300ms") == .success(.milliseconds(300)))
    #expect(DurationText.parse("1.5s") == .success(.milliseconds(1_500)))
    #expect(DurationText.parse("2m") == .success(.seconds(120)))
    #expect(DurationText.parse("86400s") == .success(.seconds(86_400)))
    #expect(DurationText.parse("86401s") == .failure(.tooLong))
    for text in ["", "5", "-1s", "infs", "nans", "1h", "s"] { #expect(DurationText.parse(text) == .failure(.notADuration), "\(text)") }
}

private extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
