import Foundation

/// Runs a script — lines of the language — through a fresh session and reports every line.
public struct ScriptRunner: Sendable {
    /// One line's outcome.
    public struct LineReport: Sendable, Equatable, Codable {
        /// The line's number in the script, from 1.
        public var line: Int
        /// The line as written.
        public var command: String
        /// Whether it succeeded (a `! ` line succeeds when its command is rejected).
        public var ok: Bool
        /// What it printed, or why it failed.
        public var output: String
        /// The screens it changed.
        public var changes: [String]
    }

    /// A whole script's outcome.
    public struct Report: Sendable, Equatable {
        /// The script's name (its path).
        public var name: String
        /// Every line that was not blank or a comment.
        public var lines: [LineReport]

        /// Whether every line succeeded.
        public var passed: Bool { lines.allSatisfy(\.ok) }
        /// The lines that failed.
        public var failures: [LineReport] { lines.filter { !$0.ok } }
    }

    /// Makes the session each script runs in.
    public let makeSession: @Sendable () -> ConsoleSession

    /// A runner whose scripts each get a session from `makeSession`.
    public init(makeSession: @escaping @Sendable () -> ConsoleSession) {
        self.makeSession = makeSession
    }

    /// `line` without the blanks around it.
    static func trimmed(_ line: Substring) -> Substring {
        let scalars = line.unicodeScalars
        let isBlank: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        guard let first = scalars.firstIndex(where: { !isBlank($0) }), let last = scalars.lastIndex(where: { !isBlank($0) }) else { return "" }
        return Substring(scalars[first...last])
    }

    /// The lines of `script`, split at line feeds by byte rather than by character.
    static func lines(of script: String) -> [Substring] {
        script.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { script[$0.startIndex..<$0.endIndex] }
    }

    /// Runs `script` (its text) named `name`.
    public func run(_ script: String, name: String) async -> Report {
        let session = makeSession()
        var reports: [LineReport] = []
        for (offset, line) in Self.lines(of: script).enumerated() {
            let trimmed = Self.trimmed(line)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            let text = String(line)
            let result = await session.execute(text)
            var output = result.output
            switch result.status {
            case .ok: break
            case .rejected(let message), .error(let message):
                output = output.isEmpty ? message : output + "\n" + message
            }
            reports.append(LineReport(line: offset + 1, command: String(trimmed), ok: result.succeeded, output: output, changes: result.changed))
            if result.quits { break }
        }
        session.store.shutDown()
        return Report(name: name, lines: reports)
    }
}

extension ScriptRunner.Report {
    /// Each command, then its output indented: what a person reads.
    public func transcript(quiet: Bool = false) -> String {
        var text = ""
        for line in lines where !quiet || !line.ok {
            text += "> \(line.command)\n"
            if !line.ok { text += "FAILED at \(name):\(line.line): \(line.command)\n" }
            for outputLine in line.output.split(separator: "\n", omittingEmptySubsequences: false) where !line.output.isEmpty {
                text += "  \(outputLine)\n"
            }
        }
        return text
    }

    /// One JSON object per command: line, command, ok, output, changes.
    public func jsonLines() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return lines.compactMap { line in
            (try? encoder.encode(line)).map { String(decoding: $0, as: UTF8.self) }
        }.joined(separator: "\n") + (lines.isEmpty ? "" : "\n")
    }
}
