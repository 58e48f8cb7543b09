import Testing

@testable import Console

@Suite("Tokenizer")
struct TokenizerTests {
    /// ASCII lines are read byte by byte; every other line scalar by scalar. Both must split,
    /// unquote and number columns alike, and fail with the same message.
    @Test func readingBytesAndReadingScalarsAgreeOnGeneratedLines() {
        let pieces = ["a", "bc", " ", "  ", "\t", "\"", "\\", "\\\"", "\\\\", "#", "\\n", "x\"y z\"w", "\"\"", "\r"]
        var generator = SplitMix(seed: 2026)
        for _ in 0..<5_000 {
            let line = (0..<Int(generator.next() % 8)).map { _ in pieces[Int(generator.next() % UInt64(pieces.count))] }.joined()
            let offset = Int(generator.next() % 3)
            let read = outcome { () throws(LineError) in try Tokenizer.tokens(in: Substring(line), columnOffset: offset) }
            let readByScalars = outcome { () throws(LineError) in try Tokenizer.scalarTokens(in: Substring(line), columnOffset: offset) }
            #expect(read == readByScalars, "\(line.debugDescription)")
        }
    }

    @Test func aLineBeyondASCIIIsReadByScalars() throws {
        let tokens = try Tokenizer.tokens(in: "notes.add \"crème brûlée\"\u{00A0}ok")
        #expect(tokens.map(\.text) == ["notes.add", "crème brûlée", "ok"])
        #expect(tokens.map(\.column) == [1, 11, 26])
    }

    private func outcome(_ read: () throws(LineError) -> [Token]) -> String {
        do {
            return try read().map { "\($0.column):\($0.text)" }.joined(separator: "|")
        } catch {
            return "error: \(error.message)"
        }
    }
}

/// A small deterministic random source, so a failure can be replayed.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
