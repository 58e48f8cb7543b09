import Testing

@testable import Console

@Suite("Tokenizer")
struct TokenizerTests {
    @Test func wordsAreSplitUnquotedAndNumberedByScalar() throws {
        let tokens = try Tokenizer.tokens(in: #"notes.add "a \"quoted\" word"  x\y # a comment"#, columnOffset: 2)
        #expect(tokens.map(\.text) == ["notes.add", #"a "quoted" word"#, #"x\y"#])
        #expect(tokens.map(\.column) == [3, 13, 34])
        #expect(throws: LineError("the quote opened at column 5 is never closed")) { try Tokenizer.tokens(in: #"say "open"#) }
        #expect(throws: LineError(#"unknown escape \n at column 7 (inside quotes only \" and \\ are escapes)"#)) {
            try Tokenizer.tokens(in: #"say "a\nb""#)
        }
    }

    @Test func aLineBeyondASCIIIsReadByScalars() throws {
        let tokens = try Tokenizer.tokens(in: "notes.add \"crème brûlée\"\u{00A0}ok")
        #expect(tokens.map(\.text) == ["notes.add", "crème brûlée", "ok"])
        #expect(tokens.map(\.column) == [1, 11, 26])
    }
}
