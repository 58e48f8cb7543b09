import AppHost
import Foundation
import StateStore

/// Runs a script — lines of the language — through a fresh session and reports every line.
public struct ScriptRunner: Sendable {
    /// One line's outcome.
    public struct LineReport: Sendable, Equatable, Codable {
        /// The line's number in the script, from 1.
        public var line: Int
        /// The line as written.
        public var command: String
        /// Whether it succeeded (a `!
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
        /// How long the script took, from its session's start to its end.
        public var duration: Duration = .zero
        /// Why the script's storage could not be opened or closed (what it wrote may not all be
        /// kept), in one line; `nil` when it opened and closed.
        public var storageFailure: String?

        /// Whether every line succeeded.
        public var passed: Bool { lines.allSatisfy(\.ok) }
        /// The lines that failed.
        public var failures: [LineReport] { lines.filter { !$0.ok } }
    }

    /// Makes the session each script runs in.
    public let makeSession: @Sendable () async throws -> ConsoleSession
    /// Whether a script stops at its first failed line (`--fail-fast`).
    public var stopsAtFirstFailure = false
    /// How long a whole script may take (`--timeout`).
    public var timeout: Duration?

    private let running = Locked<[ObjectIdentifier: ConsoleSession]>([:])

    /// A runner whose scripts each get a session from `makeSession`.
    public init(makeSession: @escaping @Sendable () async throws -> ConsoleSession) {
        self.makeSession = makeSession
    }

    /// `line` without the blanks around it: `line` itself (no copy) when it has none.
    static func trimmed(_ line: String) -> String {
        let bytes = line.utf8
        guard let first = bytes.first, let last = bytes.last, isBlank(first) || isBlank(last) else { return line }
        return String(trimmed(Substring(line)))
    }

    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
    }

    static func trimmed(_ line: Substring) -> Substring {
        // The blanks are ASCII, so the bytes around them are where scalars start and end.
        let bytes = line.utf8
        guard let first = bytes.firstIndex(where: { !isBlank($0) }), let last = bytes.lastIndex(where: { !isBlank($0) }) else { return "" }
        return line[first..<bytes.index(after: last)]
    }

    /// Runs `script` (its text) named `name`, calling `onLine` with each line's report as soon
    /// as the line has run.
    public func run(_ script: String, name: String, onLine: (LineReport) -> Void = { _ in }) async -> Report {
        // A string is UTF-8 already: its lines need no checking.
        // Split at line feed bytes, as bytes are: "\r\n" is one character but two bytes.
        // Taken one at a time as the script runs, not split into an array of every line first.
        let lineFeed = UInt8(ascii: "\n")
        let bytes = script.utf8
        let lineFeeds = bytes.reduce(0) { $1 == lineFeed ? $0 + 1 : $0 }
        var next: String.Index? = bytes.startIndex
        return await run(
            name: name, expectedLines: lineFeeds + 1,
            nextLine: {
                guard let start = next else { return nil }
                let end = bytes[start...].firstIndex(of: lineFeed) ?? bytes.endIndex
                next = end == bytes.endIndex ? nil : bytes.index(after: end)
                if bytes.distance(from: start, to: end) > ConsoleSession.maximumLineLength { return .tooLong }
                // Split at a line feed byte, a scalar boundary: the slice is whole text.
                return .text(String(script[start..<end]))
            }, onLine: onLine)
    }

    /// Runs a script given as bytes: lines split at line feeds.
    public func run(_ script: [UInt8], name: String, onLine: (LineReport) -> Void = { _ in }) async -> Report {
        let split = script.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        var lines = split.makeIterator()
        return await run(name: name, expectedLines: split.count, nextLine: { lines.next().map(ReadLine.init) }, onLine: onLine)
    }

    /// Runs `lines` one at a time as they come, calling `onLine` with each line's report once it has run.
    public func run(name: String, lines: some AsyncSequence<[UInt8], Never>, onLine: (LineReport) -> Void = { _ in }) async -> Report {
        var iterator = lines.makeAsyncIterator()
        return await run(name: name, expectedLines: 0, nextLine: { await iterator.next(isolation: nil).map(ReadLine.init) }, onLine: onLine)
    }

    /// Runs the script file at `path`, read a line at a time as it runs; a file that cannot be
    /// opened fails the script, saying why.
    public func run(file path: String, onLine: (LineReport) -> Void = { _ in }) async -> Report {
        let file = open(path, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else {
            let reason = String(cString: strerror(errno))
            let report = LineReport(line: 0, command: "(start)", ok: false, output: "the script could not be read (\(reason))", changes: [])
            onLine(report)
            return Report(name: path, lines: [report])
        }
        // The lines keep a descriptor of their own.
        let lines = InputLines(descriptor: file)
        close(file)
        return await run(name: path, lines: lines, onLine: onLine)
    }

    private enum ReadLine {
        case text(String)
        case notUTF8([UInt8])
        /// Longer than a line may be (``ConsoleSession/maximumLineLength``): not run, not shown.
        case tooLong

        /// `bytes` as text, or as they are when they are not UTF-8.
        init(_ bytes: some Collection<UInt8>) {
            if bytes.count > ConsoleSession.maximumLineLength {
                self = .tooLong
                return
            }
            self = String(validating: bytes, as: UTF8.self).map { .text($0) } ?? .notUTF8(Array(bytes))
        }
    }

    /// Runs the lines `nextLine` gives (about `expectedLines` of them, when known).
    private func run(name: String, expectedLines: Int, nextLine: () async -> ReadLine?, onLine: (LineReport) -> Void) async -> Report {
        let clock = ContinuousClock()
        let started = clock.now
        var report = await runLines(name: name, expectedLines: expectedLines, nextLine: nextLine, deadline: timeout.map { started + $0 }, onLine: onLine)
        report.duration = clock.now - started
        return report
    }

    private func runLines(name: String, expectedLines: Int, nextLine: () async -> ReadLine?, deadline: ContinuousClock.Instant?, onLine: (LineReport) -> Void)
        async -> Report
    {
        let session: ConsoleSession
        do {
            session = try await makeSession()
        } catch {
            let report = LineReport(line: 0, command: "(start)", ok: false, output: "the session could not start: \(error)", changes: [])
            onLine(report)
            return Report(name: name, lines: [report], storageFailure: "\(error)")
        }
        running.withLock { $0[ObjectIdentifier(session)] = session }
        defer { _ = running.withLock { $0.removeValue(forKey: ObjectIdentifier(session)) } }
        var reports: [LineReport] = []
        reports.reserveCapacity(expectedLines)
        var number = 0
        reading: while let read = await nextLine() {
            number += 1
            let line: String
            switch read {
            case .text(let text):
                line = text
            case .notUTF8(let bytes):
                let report = LineReport(line: number, command: "(not shown)", ok: false, output: Self.invalidUTF8(bytes), changes: [])
                onLine(report)
                reports.append(report)
                continue
            case .tooLong:
                let report = LineReport(line: number, command: "(not shown)", ok: false, output: ConsoleSession.tooLong, changes: [])
                onLine(report)
                reports.append(report)
                if stopsAtFirstFailure { break reading }
                continue
            }
            let trimmed = Self.trimmed(line)
            if trimmed.isEmpty || trimmed.utf8.first == UInt8(ascii: "#") { continue }
            // Transcripts and JSON land in CI logs: a password never shows.
            guard let result = await execute(line, in: session, before: deadline) else {
                let command = Self.trimmed(ParsedLine.displayable(trimmed))
                let running = session.host.runningEffects.map(ConsoleSession.plain)
                let report = LineReport(
                    line: number, command: command, ok: false,
                    output: "the script timed out after \(timeout ?? .zero)"
                        + (running.isEmpty ? "" : "; still running: " + running.joined(separator: ", ")), changes: [])
                onLine(report)
                reports.append(report)
                break
            }
            var output = result.output
            switch result.status {
            case .ok: break
            case .rejected(let message), .failed(let message), .error(let message):
                output = output.isEmpty ? message : output + "\n" + message
            }
            // Read lines come back ready to show; only a line that could not be read is looked
            // at again for a secret.
            let command = Self.trimmed(result.shownLine ?? ParsedLine.displayable(trimmed))
            let report = LineReport(line: number, command: command, ok: result.succeeded, output: output, changes: result.changed.map(\.rawValue))
            onLine(report)
            reports.append(report)
            if result.quits || (stopsAtFirstFailure && !report.ok) { break }
        }
        var storageFailure: String?
        do {
            try await session.host.close(timeout: .zero)
        } catch {
            // What the script's lines wrote may not all be kept: the script fails, saying why.
            let report = LineReport(line: number, command: "(end)", ok: false, output: "closing the session failed: \(error)", changes: [])
            onLine(report)
            reports.append(report)
            storageFailure = "\(error)"
        }
        return Report(name: name, lines: reports, storageFailure: storageFailure)
    }

    /// Ends every script running now the way quitting does (a signal's handler calls it).
    public func end() async -> [AppHostError] {
        // All at once: each may take its whole ending time.
        await withTaskGroup(of: AppHostError?.self) { group in
            for session in running.withLock({ Array($0.values) }) {
                group.addTask {
                    do throws(AppHostError) {
                        try await session.end()
                        return nil
                    } catch {
                        return error
                    }
                }
            }
            return await group.reduce(into: []) { if let error = $1 { $0.append(error) } }
        }
    }
}

extension ScriptRunner {
    /// Runs `line`, cancelling the session's running effects when `deadline` passes first.
    nonisolated(nonsending) private func execute(_ line: String, in session: ConsoleSession, before deadline: ContinuousClock.Instant?) async -> ConsoleSession
        .Result?
    {
        guard let deadline else { return await session.execute(line) }
        // Checked, not only raced: a line that ends at once wins the race below even after the
        // deadline whenever no other thread is free to run the sleep (a one-core machine).
        guard ContinuousClock.now < deadline else { return nil }
        let result = await withTaskGroup(of: ConsoleSession.Result?.self) { group in
            group.addTask { await session.execute(line) }
            group.addTask {
                try? await Task.sleep(until: deadline, clock: .continuous)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        if result == nil { session.cancelEffects() }
        return result
    }

    /// Why `bytes` cannot be read as a line: where its first byte that is not UTF-8 is.
    static func invalidUTF8(_ bytes: [UInt8]) -> String {
        var valid = bytes.count
        while valid > 0, String(validating: bytes.prefix(valid), as: UTF8.self) == nil { valid -= 1 }
        let bad = bytes[valid]
        return "the line is not UTF-8 (byte 0x\(String(bad, radix: 16, uppercase: true)) at byte \(valid + 1)); it was not run"
    }
}

extension ScriptRunner.Report {
    /// Each command, then its output indented: what a person reads.
    public func transcript(quiet: Bool = false) -> String {
        lines.filter { !quiet || !$0.ok }.map { $0.transcript(script: name) }.joined()
    }

    /// One JSON object per command (see ``ScriptRunner/LineReport/jsonLine(script:)``), each
    /// on its own line.
    public func jsonLines() -> String {
        lines.map { $0.jsonLine(script: name) + "\n" }.joined()
    }
}

extension ScriptRunner.LineReport {
    /// The command, then its output indented; a failure says where it happened.
    public func transcript(script: String) -> String {
        let (command, script) = (TerminalText.visible(command), TerminalText.visible(script))
        var text = "> \(command)\n"
        if !ok { text += "FAILED at \(script):\(line): \(command)\n" }
        for outputLine in output.split(separator: "\n", omittingEmptySubsequences: false) where !output.isEmpty {
            text += "  \(outputLine)\n"
        }
        return text
    }

    /// `{"changes":["counter"],"command":"counter.increment","line":3,"ok":true,"output":"counter:
    /// 1","script":"a.script"}`: one JSON object on one line, keys sorted.
    public func jsonLine(script: String) -> String {
        struct Line: Encodable {
            let script: String
            let report: ScriptRunner.LineReport
            enum Keys: String, CodingKey { case script, line, command, ok, output, changes }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Keys.self)
                try container.encode(script, forKey: .script)
                try container.encode(report.line, forKey: .line)
                try container.encode(report.command, forKey: .command)
                try container.encode(report.ok, forKey: .ok)
                try container.encode(report.output, forKey: .output)
                try container.encode(report.changes, forKey: .changes)
            }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(Line(script: script, report: self)) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
