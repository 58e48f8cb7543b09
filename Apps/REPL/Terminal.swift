import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The terminal: raw mode for the line editor, and every write, serialised so output from
/// finishing effects never tears the line being typed.
final class Terminal: @unchecked Sendable {
    let isInteractive: Bool
    let usesColour: Bool
    private var original = termios()
    private var isRaw = false
    private let lock = NSLock()
    /// What the editor shows after the prompt, redrawn after background output; `nil` while a
    /// command line is edited, which shows `commandPrompt`.
    private var prompt: String? = ""
    /// The prompt of a command line, which says who is signed in: it changes when a sign-in ends
    /// in the background, and is redrawn then.
    private var commandPrompt = ""
    private var status = ""
    private var buffer: [Character] = []
    private var cursor = 0

    init() {
        isInteractive = isatty(0) == 1 && isatty(1) == 1
        usesColour =
            isInteractive && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
            && ProcessInfo.processInfo.environment["TERM"] != "dumb"
    }

    func enterRawMode() {
        guard isInteractive, !isRaw else { return }
        tcgetattr(0, &original)
        var raw = original
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL)
        // The C boundary: `c_cc` is a tuple of NCCS bytes, and VMIN and VTIME index into it.
        withUnsafeMutableBytes(of: &raw.c_cc) { bytes in
            bytes[Int(VMIN)] = 1
            bytes[Int(VTIME)] = 0
        }
        tcsetattr(0, TCSAFLUSH, &raw)
        isRaw = true
    }

    /// Puts the terminal back as it was; from any thread (a signal's handler too).
    func restore() {
        lock.lock()
        defer { lock.unlock() }
        guard isRaw else { return }
        tcsetattr(0, TCSAFLUSH, &original)
        isRaw = false
    }

    func colour(_ text: String, _ code: String) -> String {
        usesColour ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    private func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// Prints `text` on its own lines, above the line being edited.
    func printAbove(_ text: String) {
        lock.lock()
        defer { lock.unlock() }
        guard isRaw else {
            write(text + "\n")
            return
        }
        write("\r\u{1B}[K" + text.replacingOccurrences(of: "\n", with: "\r\n") + "\r\n")
        redrawLocked()
    }

    /// Shows the editor's state after `prompt`, or after the command prompt when it is `nil`.
    func show(prompt: String?, buffer: [Character], cursor: Int) {
        lock.lock()
        defer { lock.unlock() }
        self.prompt = prompt
        self.buffer = buffer
        self.cursor = cursor
        redrawLocked()
    }

    /// Sets the command prompt, redrawn at once when the line being edited shows it.
    func setCommandPrompt(_ text: String) {
        lock.lock()
        defer { lock.unlock() }
        guard text != commandPrompt else { return }
        commandPrompt = text
        if isRaw, prompt == nil { redrawLocked() }
    }

    /// Ends the edited line (Enter).
    func newline() {
        lock.lock()
        defer { lock.unlock() }
        buffer = []
        cursor = 0
        prompt = ""
        write("\r\n")
    }

    /// Shows `text` (a spinner) before the prompt until it is set back to "".
    func setStatus(_ text: String) {
        lock.lock()
        defer { lock.unlock() }
        guard text != status else { return }
        status = text
        if isRaw { redrawLocked() }
    }

    private func redrawLocked() {
        let after = buffer.count - cursor
        var text = "\r\u{1B}[K" + status + (prompt ?? commandPrompt) + String(buffer)
        if after > 0 { text += "\u{1B}[\(after)D" }
        write(text)
    }

    /// One byte from standard input; `nil` at end of input.
    func readByte() -> UInt8? {
        var byte: UInt8 = 0
        while true {
            let count = read(0, &byte, 1)
            if count == 1 { return byte }
            if count < 0, errno == EINTR { continue }
            return nil
        }
    }
}
