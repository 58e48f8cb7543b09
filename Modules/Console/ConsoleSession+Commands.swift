import AppEnvironment
import AppHost
import Foundation
import Models
import Reducers
import StateStore
import ViewModels

extension ConsoleSession {
    /// Runs a parsed line: a feature command as an intent, any other as the console's own.
    nonisolated(nonsending) func run(_ line: ParsedLine) async throws(LineError) -> Result {
        switch line.spec.command {
        case .intent(let kind): return await perform(try intent(kind, line))
        case .console(let command): return try await run(command, line)
        }
    }

    /// The intent of `kind` a line asks for, each argument read as its parameter says.
    func intent(_ kind: Intent.Kind, _ line: ParsedLine) throws(LineError) -> Intent {
        var arguments: [Intent.Argument] = []
        for (index, parameter) in kind.parameters.enumerated() {
            switch parameter.value {
            case .text, .secret: arguments.append(.text(line.argument(index) ?? ""))
            case .note: arguments.append(.note(try noteID(line, index)))
            case .optionalNote: arguments.append(.note(index < line.arguments.count ? try noteID(line, index) : nil))
            }
        }
        guard let intent = Intent(kind, arguments) else {
            throw LineError("\(line.spec.name) could not be read as \(kind.rawValue) (usage: \(line.spec.usage))")
        }
        return intent
    }

    private nonisolated(nonsending) func run(_ command: ConsoleCommand, _ line: ParsedLine) async throws(LineError) -> Result {
        switch command {
        case .help: return help(line.argument(0))
        case .state: return try state(line.argument(0))
        case .view: return try view(line)
        case .expect: return try expect(line)
        case .wait:
            let timeout =
                try line.argument(0).map { (text: String) throws(LineError) -> Duration in try Self.duration(text, argument: 1, in: line) } ?? defaultTimeout
            guard await host.waitForEffects(timeout: timeout) else {
                return Result(status: .error(timeoutMessage(host.runningEffects, after: timeout)))
            }
            return Result(status: .ok, output: "no effect is running")
        case .advance: return try await advance(line)
        case .fail: return try fail(line)
        case .history: return try history(line)
        case .undo: return try travel("undo") { $0.undo() }
        case .redo: return try travel("redo") { $0.redo() }
        case .jump: return try jump(line)
        case .diff: return try diff(line)
        case .record: return try startRecording(line)
        case .stop:
            let stopped = recording.withLock { recording in
                defer { recording = nil }
                return recording
            }
            guard let recording = stopped else { return Result(status: .rejected("nothing is being recorded")) }
            return Result(status: .ok, output: "stopped recording \(recording.lineCount) lines to \(recording.path)")
        case .quit:
            var result = Result(status: .ok)
            result.quits = true
            return result
        }
    }

    /// The note an id argument names: its full id, any start or end of it that only one note
    /// has (hyphens optional), or `@N`, the N-th note the notes screen lists.
    func noteID(_ line: ParsedLine, _ index: Int) throws(LineError) -> Note.ID {
        let token = line.arguments[index]
        let name = line.spec.placeholder(index)
        if token.text.hasPrefix("@") {
            let listed = host.screens.notes.rows
            guard let position = Int(token.text.dropFirst()), position >= 1 else {
                throw LineError("argument \(index + 1) \(name) at column \(token.column): “\(token.text)” is not a position like @1")
            }
            guard position <= listed.count else {
                throw LineError("argument \(index + 1) \(name) at column \(token.column): there is no note \(token.text); the list shows \(listed.count)")
            }
            return listed[position - 1].id
        }
        switch noteIDs.resolve(token.text) {
        case .note(let id): return id
        case .none: throw LineError("argument \(index + 1) \(name) at column \(token.column): there is no note with id “\(token.text)” (view notes lists them)")
        case .several(let count):
            throw LineError("argument \(index + 1) \(name) at column \(token.column): “\(token.text)” matches \(count) notes; type more of the id")
        }
    }

    private func timeline() throws(LineError) -> Timeline<AppFeature.State, AppFeature.Action> {
        guard let timeline = host.timeline else { throw LineError("this session keeps no history") }
        return timeline
    }

    static let screenNames = Screen.allCases.map(\.rawValue) + ["all"]

    private func help(_ name: String?) -> Result {
        guard let name else {
            let width = CommandSpec.all.map(\.usage.count).max() ?? 0
            let lines = CommandSpec.all.map { $0.usage.padding(toLength: width + 2, withPad: " ", startingAt: 0) + $0.summary }
            return Result(
                status: .ok,
                output: (lines + ["", CommandSpec.noteIDHelp, "A line starting with “! ” expects its command to be rejected; # starts a comment."]).joined(
                    separator: "\n"))
        }
        guard let spec = CommandSpec.named(name) else {
            let suggestions = CommandSpec.suggestions(for: name)
            return Result(
                status: .error(
                    "unknown command “\(name)”" + (suggestions.isEmpty ? "" : "; did you mean \(suggestions.map { "“\($0)”" }.joined(separator: " or "))?")))
        }
        var output = "\(spec.usage)\n  \(spec.summary)"
        if spec.takesNote { output += "\n  " + CommandSpec.noteIDHelp }
        if spec.command == .console(.fail) { output += "\n  endpoints: " + Endpoint.allCases.map(\.rawValue).joined(separator: ", ") }
        if spec.command == .console(.view) {
            output +=
                "\n  screens: " + Self.screenNames.joined(separator: ", ") + "; a long list shows its first \(ConsoleScreens.pageSize) notes, --all every one"
        }
        if spec.command == .console(.expect) { output += "\n  ops: \(Comparison.list); nil stands for no value" }
        return Result(status: .ok, output: output)
    }

    private func state(_ path: String?) throws(LineError) -> Result {
        // Dates as ISO 8601, as `history` shows them (ids are text in JSON already).
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        guard let data = try? encoder.encode(host.store.currentState),
            var value = try? JSONSerialization.jsonObject(with: data)
        else {
            throw LineError("the state could not be rendered")
        }
        if let path {
            for (index, key) in path.split(separator: ".").enumerated() {
                guard let object = value as? [String: Any], let next = object[String(key)] else {
                    let known = (value as? [String: Any]).map { $0.keys.sorted().joined(separator: ", ") } ?? "none"
                    throw LineError("state has no “\(path.split(separator: ".").prefix(index + 1).joined(separator: "."))” (here: \(known))")
                }
                value = next
            }
        }
        guard JSONSerialization.isValidJSONObject(value) || value is String || value is NSNumber || value is NSNull,
            let rendered = try? JSONSerialization.data(
                withJSONObject: value, options: [.prettyPrinted, .sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes])
        else {
            throw LineError("the state could not be rendered")
        }
        return Result(status: .ok, output: String(decoding: rendered, as: UTF8.self))
    }

    private func view(_ line: ParsedLine) throws(LineError) -> Result {
        let screen = line.arguments[0]
        guard screen.text == "all" || Screen(rawValue: screen.text) != nil else {
            throw LineError("argument 1 <screen> at column \(screen.column): no screen “\(screen.text)” (screens: \(Self.screenNames.joined(separator: ", ")))")
        }
        let extent: ConsoleScreens.Extent = try line.flags().contains(.all) ? .all : .page
        let screens = ConsoleScreens(self)
        return Result(status: .ok, output: Screen(rawValue: screen.text).map { screens.render($0, extent) } ?? screens.renderAll(extent))
    }

    private func expect(_ line: ParsedLine) throws(LineError) -> Result {
        let path = line.arguments[0], op = line.arguments[1], expected = line.arguments[2]
        guard let property = ConsoleScreens.propertiesByPath[path.text] else { throw Self.unknownProperty(path) }
        let screens = ConsoleScreens(self)
        let actualText = property.value(screens)
        guard let comparison = Comparison(rawValue: op.text) else {
            throw LineError("argument 2 <op> at column \(op.column): unknown operator “\(op.text)” (\(Comparison.list))")
        }
        guard let holds = comparison.holds(actualText, expected.text) else {
            throw LineError(
                "argument 2 <op> at column \(op.column): \(op.text) compares numbers, but \(path.text) is \(actualText) and the value is \(expected.text)")
        }
        guard holds else {
            return Result(status: .rejected("expected \(path.text) \(op.text) \(expected.text), but it is \(actualText)"), screens: screens)
        }
        return Result(status: .ok, output: "ok: \(path.text) is \(actualText)", screens: screens)
    }

    private static func unknownProperty(_ path: Token) -> LineError {
        // Split at the first "." (a byte: no character breaking).
        guard let dot = path.text.utf8.firstIndex(of: UInt8(ascii: ".")), let screen = Screen(rawValue: String(path.text[..<dot])) else {
            return LineError(
                "argument 1 <path> at column \(path.column): “\(path.text)” is not screen.property (screens: \(Screen.allCases.map(\.rawValue).joined(separator: ", ")))"
            )
        }
        let property = String(path.text[path.text.utf8.index(after: dot)...])
        return LineError(
            "argument 1 <path> at column \(path.column): \(screen.rawValue) has no property “\(property)” (it has \(ConsoleScreens.propertyNames(of: screen).joined(separator: ", ")))"
        )
    }

    private func advance(_ line: ParsedLine) async throws(LineError) -> Result {
        guard host.testClock != nil else {
            throw LineError("advance needs the test clock, but this session runs on real time; use wait instead")
        }
        let duration = try Self.duration(line.arguments[0].text, argument: 1, in: line)
        let before = ConsoleScreens(self)
        // Without waiting, the clock moves and the app hears the time, but its effects run on.
        _ = try? await host.advanceClock(by: duration, timeout: waitsForEffects ? defaultTimeout : .zero)
        let (changed, output) = ConsoleScreens(self).changes(since: before)
        return Result(status: .ok, output: (["time +\(line.arguments[0].text)"] + (changed.isEmpty ? [] : [output])).joined(separator: "\n"), changed: changed)
    }

    /// `300ms`, `2s`, `1.5s`, `1m` (``DurationText``), or an error naming the argument.
    static func duration(_ text: String, argument: Int, in line: ParsedLine) throws(LineError) -> Duration {
        let column = line.arguments[argument - 1].column
        switch DurationText.parse(text) {
        case .success(let duration):
            return duration
        case .failure(.tooLong):
            throw LineError("argument \(argument) at column \(column): “\(text)” is longer than the longest duration, 1 day (86400s)")
        case .failure(.notADuration):
            throw LineError("argument \(argument) at column \(column): “\(text)” is not a duration (like 300ms, 2s or 1m)")
        }
    }

    static let mostFailures = 1_000_000

    private func fail(_ line: ParsedLine) throws(LineError) -> Result {
        let name = line.arguments[0]
        guard let endpoint = Endpoint(rawValue: name.text) else {
            let close = name.text.utf8.count > 64 ? [] : Endpoint.allCases.map(\.rawValue).filter { editDistance($0, name.text) <= 3 }
            throw LineError(
                "argument 1 <client.endpoint> at column \(name.column): no endpoint “\(name.text)”"
                    + (close.isEmpty ? " (help fail lists them)" : "; did you mean \(close.map { "“\($0)”" }.joined(separator: " or "))?"))
        }
        var count = 1
        if let text = line.argument(1) {
            guard let parsed = Int(text), (1...Self.mostFailures).contains(parsed) else {
                throw LineError("argument 2 [count] at column \(line.arguments[1].column): “\(text)” is not a number from 1 to \(Self.mostFailures)")
            }
            count = parsed
        }
        guard host.injectsFailures else {
            return Result(status: .rejected("this session's clients cannot be made to fail (its host was opened without AppHost.Options.injectsFailures)"))
        }
        host.failures.failNext(endpoint, count: count)
        let total = host.failures.pendingFailures(of: endpoint)
        return Result(status: .ok, output: "the next \(total == 1 ? "call" : "\(total) calls") of \(endpoint) will fail with a simulated network error")
    }

    // MARK: - Time travel

    private func history(_ line: ParsedLine) throws(LineError) -> Result {
        let full = try line.flags().contains(.full)
        let timeline = try timeline()
        let entries = timeline.entries
        let current = timeline.current.index
        let width = String(entries.last?.index ?? 0).count
        let compact = HistoryLine(noteIDs: noteIDs)
        let lines = entries.map { entry in
            let number = String(entry.index)
            let action = entry.action.map { full ? ValueRenderer.oneLine($0, presentation: .app) : compact.render($0) } ?? "(start)"
            return "\(entry.index == current ? ">" : " ") \(String(repeating: " ", count: width - number.count))\(number)  " + action
        }
        return Result(status: .ok, output: lines.joined(separator: "\n"))
    }

    private func travel(_ name: String, _ move: (AppHost) -> Bool) throws(LineError) -> Result {
        let timeline = try timeline()
        let before = ConsoleScreens(self)
        guard move(host) else { return Result(status: .rejected("nothing to \(name)")) }
        let (changed, output) = ConsoleScreens(self).changes(since: before)
        return Result(status: .ok, output: (["at \(timeline.current.index)"] + (changed.isEmpty ? [] : [output])).joined(separator: "\n"), changed: changed)
    }

    private func jump(_ line: ParsedLine) throws(LineError) -> Result {
        let token = line.arguments[0]
        guard let index = Int(token.text) else {
            throw LineError("argument 1 <n> at column \(token.column): “\(token.text)” is not a number (history lists them)")
        }
        _ = try timeline()
        let before = ConsoleScreens(self)
        do {
            try host.jump(to: index)
        } catch {
            return Result(status: .rejected("\(error)"))
        }
        let (changed, output) = ConsoleScreens(self).changes(since: before)
        return Result(status: .ok, output: (["at \(index)"] + (changed.isEmpty ? [] : [output])).joined(separator: "\n"), changed: changed)
    }

    private func diff(_ line: ParsedLine) throws(LineError) -> Result {
        let timeline = try timeline()
        let entries = timeline.entries
        var index = timeline.current.index
        if line.argument(0) == nil, entries.count < 2 {
            return Result(status: .rejected("no action has been reduced yet, so there is nothing to diff"))
        }
        if let text = line.argument(0) {
            guard let number = Int(text) else { throw LineError("argument 1 [n] at column \(line.arguments[0].column): “\(text)” is not a number") }
            index = number
        }
        guard let position = entries.firstIndex(where: { $0.index == index }), position > 0, let action = entries[position].action else {
            let available = entries.count > 1 ? "actions \(entries[1].index)…\(entries[entries.count - 1].index) are available" : "none yet"
            return Result(status: .rejected("no action \(index) in history (\(available); history lists them)"))
        }
        guard let old = try? timeline.state(at: entries[position - 1].index), let new = try? timeline.state(at: index) else {
            return Result(status: .rejected("action \(index) is no longer kept in history"))
        }
        let change = ValueDiff(old: old, new: new, presentation: .app)
        let header = "\(index)  \(ValueRenderer.oneLine(action, presentation: .app))"
        return Result(status: .ok, output: header + "\n" + (change.isEmpty ? "  (no change)" : change.render(oldMarker: "  - ", newMarker: "  + ")))
    }

    // MARK: - Recording

    private func startRecording(_ line: ParsedLine) throws(LineError) -> Result {
        if let current = recording.withLock({ $0 }) { return Result(status: .rejected("already recording to \(current.path)")) }
        let flags = try line.flags()
        let includeSecrets = flags.contains(.includeSecrets), force = flags.contains(.force)
        let path = line.arguments[0].text
        if case .database(let database) = host.storage, DatabaseFiles.contain(path, database: database) {
            throw LineError("“\(path)” is the database or one of its files; record to another file")
        }
        if !force, FileManager.default.fileExists(atPath: path) {
            throw LineError("“\(path)” exists; record --force \(path) replaces it")
        }
        guard FileManager.default.createFile(atPath: path, contents: Data(), attributes: [.posixPermissions: 0o600]) else {
            throw LineError("cannot write “\(path)” (does its folder exist, and may it be written?)")
        }
        recording.withLock { $0 = Recording(path: path, includeSecrets: includeSecrets) }
        return Result(status: .ok, output: "recording to \(path)\(includeSecrets ? " (secrets included)" : " (passwords redacted)")")
    }
}

/// The commands typed while recording, written to a script file as they come.
struct Recording: Sendable {
    let path: String
    let includeSecrets: Bool
    private(set) var lineCount = 0

    init(path: String, includeSecrets: Bool) {
        self.path = path
        self.includeSecrets = includeSecrets
    }

    mutating func record(_ line: String, _ parsed: ParsedLine) {
        guard parsed.spec.command != .console(.record), parsed.spec.command != .console(.stop) else { return }
        let text = !includeSecrets && parsed.carriesSecret ? parsed.redacted : line
        guard let handle = FileHandle(forWritingAtPath: path) else { return }
        defer { try? handle.close() }
        _ = try? handle.seekToEnd()
        try? handle.write(contentsOf: Data((text + "\n").utf8))
        lineCount += 1
    }
}
