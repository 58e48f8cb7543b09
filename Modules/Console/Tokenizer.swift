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
    static func tokens(in line: String) throws(LineError) -> [Token] {
        // Unicode scalars, not characters: no grapheme breaking on every line of a long script.
        var tokens: [Token] = []
        var current = String.UnicodeScalarView()
        var start: Int?
        var quoteStart: Int?
        var escaping = false
        var column = 0
        for scalar in line.unicodeScalars {
            column += 1
            if quoteStart != nil {
                if escaping {
                    guard scalar == "\"" || scalar == "\\" else {
                        throw LineError("unknown escape \\\(Character(scalar)) at column \(column - 1) (inside quotes only \\\" and \\\\ are escapes)")
                    }
                    current.append(scalar)
                    escaping = false
                } else if scalar == "\\" {
                    escaping = true
                } else if scalar == "\"" {
                    quoteStart = nil
                } else {
                    current.append(scalar)
                }
                continue
            }
            switch scalar {
            case "#":
                if let start { tokens.append(Token(text: String(current), column: start)) }
                return tokens
            case "\"":
                if start == nil { start = column }
                quoteStart = column
            case " ", "\t", "\r", "\n":
                if let begun = start {
                    tokens.append(Token(text: String(current), column: begun))
                    current = String.UnicodeScalarView()
                    start = nil
                }
            default:
                if scalar.value >= 0x80, scalar.properties.isWhitespace {
                    if let begun = start {
                        tokens.append(Token(text: String(current), column: begun))
                        current = String.UnicodeScalarView()
                        start = nil
                    }
                } else {
                    if start == nil { start = column }
                    current.append(scalar)
                }
            }
        }
        if let opened = quoteStart {
            throw LineError("the quote opened at column \(opened) is never closed")
        }
        if let start { tokens.append(Token(text: String(current), column: start)) }
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
