/// One word of a command line, with where it starts (1-based column) for error messages.
public struct Token: Hashable, Sendable {
    /// The word, with quotes and escapes resolved.
    public let text: String
    /// The column of its first character in the line, from 1.
    public let column: Int
}

/// Why a line could not be read.
public struct LineError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong, naming the column or argument.
    public let message: String

    /// An error saying `message`.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}

/// Splits a line into words: spaces separate them, `#` outside quotes starts a comment, double
/// quotes keep spaces, and inside quotes `\"` and `\\` stand for `"` and `\`.
enum Tokenizer {
    /// The words of `line`; columns count Unicode scalars from 1, plus `columnOffset`.
    static func tokens(in line: Substring, columnOffset: Int = 0) throws(LineError) -> [Token] {
        try scalarTokens(in: line, columnOffset: columnOffset)
    }

    private static func unknownEscape(_ character: Character, at column: Int) -> LineError {
        LineError("unknown escape \\\(character) at column \(column) (inside quotes only \\\" and \\\\ are escapes)")
    }

    private static func unclosedQuote(at column: Int) -> LineError {
        LineError("the quote opened at column \(column) is never closed")
    }

    /// ``tokens(in:columnOffset:)``, scalar by scalar.
    private static func scalarTokens(in line: Substring, columnOffset: Int) throws(LineError) -> [Token] {
        // Unicode scalars, not characters: no grapheme breaking on every line of a long script.
        // A word is copied in runs of plain scalars, not scalar by scalar.
        let scalars = line.unicodeScalars
        var tokens: [Token] = []
        var current = ""
        var runStart: Substring.UnicodeScalarView.Index?
        var start: Int?
        var quoteStart: Int?
        var escaping = false
        var column = columnOffset
        func flushRun(before end: Substring.UnicodeScalarView.Index) {
            guard let begun = runStart else { return }
            // Scalar-aligned indices slice the line exactly; appending a substring copies bytes.
            current.append(contentsOf: line[begun..<end])
            runStart = nil
        }
        func endWord(at end: Substring.UnicodeScalarView.Index) {
            flushRun(before: end)
            guard let begun = start else { return }
            tokens.append(Token(text: current, column: begun))
            current = ""
            start = nil
        }
        var index = scalars.startIndex
        while index < scalars.endIndex {
            let scalar = scalars[index]
            column += 1
            if quoteStart != nil {
                if escaping {
                    guard scalar == "\"" || scalar == "\\" else {
                        throw unknownEscape(Character(scalar), at: column - 1)
                    }
                    runStart = index
                    escaping = false
                } else if scalar == "\\" {
                    flushRun(before: index)
                    escaping = true
                } else if scalar == "\"" {
                    flushRun(before: index)
                    quoteStart = nil
                } else if runStart == nil {
                    runStart = index
                }
            } else {
                switch scalar {
                case "#":
                    endWord(at: index)
                    return tokens
                case "\"":
                    flushRun(before: index)
                    if start == nil { start = column }
                    quoteStart = column
                case " ", "\t", "\r", "\n":
                    endWord(at: index)
                default:
                    if scalar.value >= 0x80, scalar.properties.isWhitespace {
                        endWord(at: index)
                    } else {
                        if start == nil { start = column }
                        if runStart == nil { runStart = index }
                    }
                }
            }
            scalars.formIndex(after: &index)
        }
        if let opened = quoteStart {
            throw unclosedQuote(at: opened)
        }
        endWord(at: scalars.endIndex)
        return tokens
    }

    /// `text` as one word of the language: bare when it can be, quoted and escaped otherwise.
    static func quoted(_ text: String) -> String {
        let needsQuotes = text.isEmpty || text.contains { $0.isWhitespace || $0 == "\"" || $0 == "#" || $0 == "\\" }
        guard needsQuotes else { return text }
        var escaped = "\""
        for character in text {
            if character == "\"" || character == "\\" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped + "\""
    }
}
