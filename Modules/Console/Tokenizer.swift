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
    private static func unknownEscape(_ character: Character, at column: Int) -> LineError {
        LineError("unknown escape \\\(character) at column \(column) (inside quotes only \\\" and \\\\ are escapes)")
    }

    private static func unclosedQuote(at column: Int) -> LineError {
        LineError("the quote opened at column \(column) is never closed")
    }

    /// The words of `line`; columns count Unicode scalars from 1, plus `columnOffset`.
    static func tokens(in line: Substring, columnOffset: Int = 0) throws(LineError) -> [Token] {
        let bytes = line.utf8
        var tokens: [Token] = []
        // Room for a command and its arguments at once, rather than growing one word at a time.
        tokens.reserveCapacity(6)
        var current = ""
        var runStart: Substring.Index?
        var start: Int?
        var quoteStart: Int?
        var escaping = false
        var column = columnOffset
        func flushRun(before end: Substring.Index) {
            guard let begun = runStart else { return }
            current.append(contentsOf: line[begun..<end])
            runStart = nil
        }
        func endWord(at end: Substring.Index) {
            guard let begun = start else { return }
            if current.isEmpty, let run = runStart {
                tokens.append(Token(text: String(line[run..<end]), column: begun))
                runStart = nil
            } else {
                flushRun(before: end)
                tokens.append(Token(text: current, column: begun))
                current = ""
            }
            start = nil
        }
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            // A continuation byte belongs to the scalar before it.
            if byte & 0xC0 == 0x80 {
                bytes.formIndex(after: &index)
                continue
            }
            column += 1
            if quoteStart != nil {
                if escaping {
                    guard byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else {
                        throw unknownEscape(Character(line.unicodeScalars[index]), at: column - 1)
                    }
                    runStart = index
                    escaping = false
                } else if byte == UInt8(ascii: "\\") {
                    flushRun(before: index)
                    escaping = true
                } else if byte == UInt8(ascii: "\"") {
                    flushRun(before: index)
                    quoteStart = nil
                } else if runStart == nil {
                    runStart = index
                }
            } else {
                switch byte {
                case UInt8(ascii: "#"):
                    endWord(at: index)
                    return tokens
                case UInt8(ascii: "\""):
                    flushRun(before: index)
                    if start == nil { start = column }
                    quoteStart = column
                case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"), UInt8(ascii: "\n"):
                    endWord(at: index)
                default:
                    if byte >= 0x80, line.unicodeScalars[index].properties.isWhitespace {
                        endWord(at: index)
                    } else {
                        if start == nil { start = column }
                        if runStart == nil { runStart = index }
                    }
                }
            }
            bytes.formIndex(after: &index)
        }
        if let opened = quoteStart {
            throw unclosedQuote(at: opened)
        }
        endWord(at: bytes.endIndex)
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
