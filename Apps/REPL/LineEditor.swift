/// What a key press asks the shell to do.
enum EditorEvent {
    /// Enter: the line typed.
    case line(String)
    /// Ctrl-C: cancel what runs, keep the session.
    case interrupt
    /// Ctrl-D on an empty line, or end of input.
    case endOfInput
}

/// A small line editor over a raw terminal: arrows, home/end, word and line deletion, history,
/// and tab completion.
final class LineEditor {
    private let terminal: Terminal
    private let complete: (String) -> [String]
    private(set) var history: [String]
    private var buffer: [Character] = []
    private var cursor = 0
    private var historyIndex: Int?
    private var draft: [Character] = []
    /// Whether the line being read is a secret, shown masked.
    private var masked = false

    init(terminal: Terminal, history: [String], complete: @escaping (String) -> [String]) {
        self.terminal = terminal
        self.history = history
        self.complete = complete
    }

    /// Reads one line with `prompt` shown, or the terminal's command prompt when it is `nil`. A
    /// `secret` line shows a `•` per character and is neither kept in the history nor completed.
    func readLine(prompt: String? = nil, secret: Bool = false) -> EditorEvent {
        buffer = []
        cursor = 0
        historyIndex = nil
        masked = secret
        defer { masked = false }
        refresh(prompt)
        while let byte = terminal.readByte() {
            switch byte {
            case 13, 10:
                let line = String(buffer)
                terminal.newline()
                if !secret, !line.trimmingCharactersInSet().isEmpty, history.last != line { history.append(line) }
                return .line(line)
            case 3:
                buffer = []
                cursor = 0
                terminal.newline()
                return .interrupt
            case 4:
                if buffer.isEmpty {
                    terminal.newline()
                    return .endOfInput
                }
                deleteForward()
            case 1: cursor = 0
            case 5: cursor = buffer.count
            case 2: cursor = max(0, cursor - 1)
            case 6: cursor = min(buffer.count, cursor + 1)
            case 127, 8: deleteBackward()
            case 11: buffer.removeSubrange(cursor...)
            case 21:
                buffer.removeSubrange(..<cursor)
                cursor = 0
            case 23: deleteWordBackward()
            case 9: if !secret { completeWord() }
            case 27: escapeSequence()
            default:
                if byte >= 32 { insert(byte) }
            }
            refresh(prompt)
        }
        return .endOfInput
    }

    private func refresh(_ prompt: String?) {
        terminal.show(prompt: prompt, buffer: masked ? Array(repeating: "•", count: buffer.count) : buffer, cursor: cursor)
    }

    /// Collects the bytes of one UTF-8 character starting with `first`.
    private func insert(_ first: UInt8) {
        var bytes = [first]
        let extra = first >= 0xF0 ? 3 : first >= 0xE0 ? 2 : first >= 0xC0 ? 1 : 0
        for _ in 0..<extra {
            guard let next = terminal.readByte() else { break }
            bytes.append(next)
        }
        for character in String(decoding: bytes, as: UTF8.self) {
            buffer.insert(character, at: cursor)
            cursor += 1
        }
    }

    private func deleteBackward() {
        guard cursor > 0 else { return }
        buffer.remove(at: cursor - 1)
        cursor -= 1
    }

    private func deleteForward() {
        guard cursor < buffer.count else { return }
        buffer.remove(at: cursor)
    }

    private func deleteWordBackward() {
        var start = cursor
        while start > 0, buffer[start - 1] == " " { start -= 1 }
        while start > 0, buffer[start - 1] != " " { start -= 1 }
        buffer.removeSubrange(start..<cursor)
        cursor = start
    }

    private func escapeSequence() {
        guard let second = terminal.readByte() else { return }
        if second == 98 { moveWord(-1); return } // Alt-b
        if second == 102 { moveWord(1); return } // Alt-f
        if second == 127 { deleteWordBackward(); return } // Alt-Backspace
        guard second == 91 || second == 79, let third = terminal.readByte() else { return }
        switch third {
        case 65: recall(-1) // up
        case 66: recall(1) // down
        case 67: cursor = min(buffer.count, cursor + 1) // right
        case 68: cursor = max(0, cursor - 1) // left
        case 72: cursor = 0 // home
        case 70: cursor = buffer.count // end
        case 49, 51, 52, 55, 56: // ESC [ n ~
            guard terminal.readByte() == 126 else { return }
            switch third {
            case 49, 55: cursor = 0
            case 52, 56: cursor = buffer.count
            default: deleteForward()
            }
        default: break
        }
    }

    private func moveWord(_ direction: Int) {
        if direction < 0 {
            while cursor > 0, buffer[cursor - 1] == " " { cursor -= 1 }
            while cursor > 0, buffer[cursor - 1] != " " { cursor -= 1 }
        } else {
            while cursor < buffer.count, buffer[cursor] == " " { cursor += 1 }
            while cursor < buffer.count, buffer[cursor] != " " { cursor += 1 }
        }
    }

    private func recall(_ step: Int) {
        guard !masked, !history.isEmpty else { return }
        if historyIndex == nil {
            guard step < 0 else { return }
            draft = buffer
            historyIndex = history.count
        }
        let next = (historyIndex ?? history.count) + step
        if next >= history.count {
            historyIndex = nil
            buffer = draft
        } else if next >= 0 {
            historyIndex = next
            buffer = Array(history[next])
        }
        cursor = buffer.count
    }

    /// How many completions a Tab lists at most.
    static let listedCompletions = 60

    private func completeWord() {
        let before = String(buffer[..<cursor])
        let candidates = complete(before)
        guard !candidates.isEmpty else { return }
        let partialLength = before.last?.isWhitespace == true ? 0 : (before.split(separator: " ").last?.count ?? 0)
        let common = candidates.dropFirst().reduce(candidates[0]) { prefix, candidate in
            String(prefix.commonPrefix(with: candidate))
        }
        if common.count > partialLength {
            let addition = Array(common.dropFirst(partialLength)) + (candidates.count == 1 ? [" "] : [])
            buffer.insert(contentsOf: addition, at: cursor)
            cursor += addition.count
        } else if candidates.count > 1 {
            // Ten thousand note ids are no help on a screen: a few, and how many more there are.
            let shown = candidates.prefix(Self.listedCompletions).joined(separator: "  ")
            let more = candidates.count - Self.listedCompletions
            terminal.printAbove(more > 0 ? shown + "  … and \(more) more (type more to narrow them down)" : shown)
        }
    }
}

extension String {
    func trimmingCharactersInSet() -> Substring {
        drop { $0.isWhitespace }
    }
}
