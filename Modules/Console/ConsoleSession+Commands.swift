import AppEnvironment
import Foundation
import Models
import Reducers
import StateStore
import ViewModels

extension ConsoleSession {
    // MARK: - Feature commands

    /// The action a feature command stands for; `nil` for meta commands.
    func action(for line: ParsedLine) throws(LineError) -> AppFeature.Action? {
        let text = line.argument(0) ?? ""
        switch line.spec.name {
        case "signup":
            return .session(.signUpTapped(Credentials(username: Username(text), password: Password(line.argument(1) ?? ""))))
        case "login.username": return .login(.usernameChanged(Username(text)))
        case "login.password": return .login(.passwordChanged(Password(text)))
        case "login.submit": return .login(.signInTapped)
        case "login.ack": return .login(.errorAcknowledged)
        case "logout": return .session(.signOutTapped)
        case "profile.load", "profile.retry": return nil
        case "posts.add": return .posts(.add(text))
        case "notes.add": return .notes(.addTapped(text))
        case "notes.edit": return .notes(.edited(try noteID(line, 0), line.argument(1) ?? ""))
        case "notes.delete": return .notes(.deleteTapped(try noteID(line, 0)))
        case "notes.select": return .notes(.selected(try noteID(line, 0)))
        case "notes.search": return .notes(.searchQueryChanged(text))
        case "notes.retry": return .notes(.retrySaveTapped(try noteID(line, 0)))
        case "counter.increment": return .counter(.incrementTapped)
        case "counter.decrement": return .counter(.decrementTapped)
        case "counter.reset": return .counter(.resetTapped)
        default: return nil
        }
    }

    /// The note an id argument names: its full id, or any start or end of it that only one
    /// note has (hyphens optional).
    func noteID(_ line: ParsedLine, _ index: Int) throws(LineError) -> Note.ID {
        let token = line.arguments[index]
        let name = line.spec.required[index]
        switch noteIDs.resolve(token.text) {
        case .note(let id): return id
        case .none: throw LineError("argument \(index + 1) \(name) at column \(token.column): there is no note with id “\(token.text)” (view notes lists them)")
        case .several(let count): throw LineError("argument \(index + 1) \(name) at column \(token.column): “\(token.text)” matches \(count) notes; type more of the id")
        }
    }

    // MARK: - Meta commands

    func meta(_ line: ParsedLine) async throws -> Result {
        switch line.spec.name {
        case "profile.load":
            return await sendAll([.profile(.load), .posts(.load)])
        case "profile.retry":
            let state = store.currentState
            var actions: [AppFeature.Action] = []
            if case .failed = state.profile { actions.append(.profile(.load)) }
            if case .failed = state.posts.phase { actions.append(.posts(.load)) }
            guard !actions.isEmpty else { return Result(status: .rejected("nothing on the profile failed to load; profile.load reloads it"), output: "", changed: []) }
            return await sendAll(actions)
        case "help": return help(line.argument(0))
        case "state": return try state(line.argument(0))
        case "view": return try view(line)
        case "expect": return try expect(line)
        case "wait":
            let timeout = try line.argument(0).map { (text: String) throws(LineError) -> Duration in try Self.duration(text, argument: 1, in: line) } ?? defaultTimeout
            if let message = await settle(within: timeout) { return Result(status: .error(message), output: "", changed: []) }
            return Result(status: .ok, output: "no effect is running", changed: [])
        case "advance": return try await advance(line)
        case "fail": return try fail(line)
        case "history": return history()
        case "undo": return travel("undo") { self.timeline.undo() }
        case "redo": return travel("redo") { self.timeline.redo() }
        case "jump": return try jump(line)
        case "diff": return try diff(line)
        case "record": return try startRecording(line)
        case "stop":
            guard let recording else { return Result(status: .rejected("nothing is being recorded"), output: "", changed: []) }
            self.recording = nil
            return Result(status: .ok, output: "stopped recording \(recording.lineCount) lines to \(recording.path)", changed: [])
        case "quit":
            var result = Result(status: .ok, output: "", changed: [])
            result.quits = true
            return result
        default:
            throw LineError("\(line.spec.name) is not implemented")
        }
    }

    private func sendAll(_ actions: [AppFeature.Action]) async -> Result {
        var combined = Result(status: .ok, output: "", changed: [])
        let before = Screens(self)
        for action in actions {
            let result = await send(action)
            if case .ok = combined.status { combined.status = result.status }
        }
        let after = Screens(self)
        (combined.changed, combined.output) = after.changes(since: before)
        combined.screens = after
        return combined
    }

    private func help(_ name: String?) -> Result {
        guard let name else {
            let width = CommandSpec.all.map(\.usage.count).max() ?? 0
            let lines = CommandSpec.all.map { $0.usage.padding(toLength: width + 2, withPad: " ", startingAt: 0) + $0.summary }
            return Result(status: .ok, output: (lines + ["", "A line starting with “! ” expects its command to be rejected; # starts a comment."]).joined(separator: "\n"), changed: [])
        }
        guard let spec = CommandSpec.named(name) else {
            let suggestions = CommandSpec.suggestions(for: name)
            return Result(status: .error("unknown command “\(name)”" + (suggestions.isEmpty ? "" : "; did you mean \(suggestions.map { "“\($0)”" }.joined(separator: " or "))?")), output: "", changed: [])
        }
        var output = "\(spec.usage)\n  \(spec.summary)"
        if spec.name == "fail" { output += "\n  endpoints: " + Endpoint.allCases.map(\.rawValue).joined(separator: ", ") }
        if spec.name == "view" { output += "\n  screens: " + (Screens.names + ["all"]).joined(separator: ", ") + "; a long list shows its first \(Screens.pageSize) notes, --all every one" }
        if spec.name == "expect" { output += "\n  ops: ==, !=, <, <=, >, >=, contains; nil stands for no value" }
        return Result(status: .ok, output: output, changed: [])
    }

    private func state(_ path: String?) throws(LineError) -> Result {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? JSONEncoder().encode(store.currentState),
              var value = try? JSONSerialization.jsonObject(with: data) else {
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
              let rendered = try? JSONSerialization.data(withJSONObject: value, options: [.prettyPrinted, .sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes]) else {
            throw LineError("the state could not be rendered")
        }
        return Result(status: .ok, output: String(decoding: rendered, as: UTF8.self), changed: [])
    }

    private func view(_ line: ParsedLine) throws(LineError) -> Result {
        let screen = line.arguments[0]
        guard screen.text == "all" || Screens.names.contains(screen.text) else {
            throw LineError("argument 1 <screen> at column \(screen.column): no screen “\(screen.text)” (screens: \((Screens.names + ["all"]).joined(separator: ", ")))")
        }
        var extent = Screens.Extent.page
        if let option = line.arguments.dropFirst().first {
            guard option.text == "--all" else {
                throw LineError("argument 2 at column \(option.column): unknown option “\(option.text)” (only --all, which lists every note)")
            }
            extent = .all
        }
        return Result(status: .ok, output: Screens(self).render(screen.text, extent), changed: [])
    }

    private func expect(_ line: ParsedLine) throws(LineError) -> Result {
        let path = line.arguments[0], op = line.arguments[1], expected = line.arguments[2]
        let parts = path.text.split(separator: ".", maxSplits: 1).map(String.init)
        guard parts.count == 2, let names = Screens.propertyNames[parts[0]] else {
            throw LineError("argument 1 <path> at column \(path.column): “\(path.text)” is not screen.property (screens: \(Screens.names.joined(separator: ", ")))")
        }
        let screens = Screens(self)
        guard let actualText = screens.value(of: parts[1], on: parts[0]) else {
            throw LineError("argument 1 <path> at column \(path.column): \(parts[0]) has no property “\(parts[1])” (it has \(names.joined(separator: ", ")))")
        }
        let holds: Bool
        switch op.text {
        case "==": holds = actualText == expected.text
        case "!=": holds = actualText != expected.text
        case "contains": holds = actualText.contains(expected.text)
        case "<", "<=", ">", ">=":
            guard let left = Double(actualText), let right = Double(expected.text) else {
                throw LineError("argument 2 <op> at column \(op.column): \(op.text) compares numbers, but \(path.text) is \(actualText) and the value is \(expected.text)")
            }
            holds = switch op.text {
            case "<": left < right
            case "<=": left <= right
            case ">": left > right
            default: left >= right
            }
        default:
            throw LineError("argument 2 <op> at column \(op.column): unknown operator “\(op.text)” (==, !=, <, <=, >, >=, contains)")
        }
        guard holds else {
            return Result(status: .rejected("expected \(path.text) \(op.text) \(expected.text), but it is \(actualText)"), output: "", changed: [], screens: screens)
        }
        return Result(status: .ok, output: "ok: \(path.text) is \(actualText)", changed: [], screens: screens)
    }

    private func advance(_ line: ParsedLine) async throws(LineError) -> Result {
        guard let clock = environment.manualClock else {
            throw LineError("advance needs the test clock, but this session runs on real time (--env \(environment.name)); use wait instead")
        }
        let duration = try Self.duration(line.arguments[0].text, argument: 1, in: line)
        let before = Screens(self)
        await clock.advance(by: duration)
        if waitsForEffects { await settleWithoutClock() }
        let (changed, output) = Screens(self).changes(since: before)
        return Result(status: .ok, output: (["time +\(line.arguments[0].text)"] + (changed.isEmpty ? [] : [output])).joined(separator: "\n"), changed: changed)
    }

    /// Lets effects woken by `advance` finish, without moving the clock further.
    private func settleWithoutClock() async {
        for _ in 0..<1_000 {
            let sleepers = environment.manualClock?.sleeperCount ?? 0
            if store.runningEffects.count <= sleepers { return }
            try? await Task.sleep(for: .milliseconds(1))
        }
    }

    /// `300ms`, `2s`, `1.5s`, `1m`.
    static func duration(_ text: String, argument: Int, in line: ParsedLine) throws(LineError) -> Duration {
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60)]
        for (unit, seconds) in units where text.hasSuffix(unit) {
            if let value = Double(text.dropLast(unit.count)), value >= 0 {
                return .milliseconds(Int64((value * seconds * 1000).rounded()))
            }
        }
        let column = line.arguments[argument - 1].column
        throw LineError("argument \(argument) at column \(column): “\(text)” is not a duration (like 300ms, 2s or 1m)")
    }

    private func fail(_ line: ParsedLine) throws(LineError) -> Result {
        let name = line.arguments[0]
        guard let endpoint = Endpoint(rawValue: name.text) else {
            let close = Endpoint.allCases.map(\.rawValue).filter { editDistance($0, name.text) <= 3 }
            throw LineError("argument 1 <client.endpoint> at column \(name.column): no endpoint “\(name.text)”" +
                (close.isEmpty ? " (help fail lists them)" : "; did you mean \(close.map { "“\($0)”" }.joined(separator: " or "))?"))
        }
        var count = 1
        if let text = line.argument(1) {
            guard let parsed = Int(text), parsed > 0 else {
                throw LineError("argument 2 [count] at column \(line.arguments[1].column): “\(text)” is not a positive number")
            }
            count = parsed
        }
        environment.failures.failNext(endpoint, count: count)
        let total = environment.failures.pendingFailures(of: endpoint)
        return Result(status: .ok, output: "the next \(total == 1 ? "call" : "\(total) calls") of \(endpoint) will fail with a simulated network error", changed: [])
    }

    // MARK: - Time travel

    private func history() -> Result {
        let entries = timeline.entries
        let current = timeline.current.index
        let width = String(entries.last?.index ?? 0).count
        let lines = entries.map { entry in
            let number = String(entry.index)
            return "\(entry.index == current ? ">" : " ") \(String(repeating: " ", count: width - number.count))\(number)  "
                + (entry.action.map { Self.plain(ValueRenderer.oneLine($0)) } ?? "(start)")
        }
        return Result(status: .ok, output: lines.joined(separator: "\n"), changed: [])
    }

    private func travel(_ name: String, _ move: () -> Bool) -> Result {
        let before = Screens(self)
        guard move() else { return Result(status: .rejected("nothing to \(name)"), output: "", changed: []) }
        let (changed, output) = Screens(self).changes(since: before)
        return Result(status: .ok, output: (["at \(timeline.current.index)"] + (changed.isEmpty ? [] : [output])).joined(separator: "\n"), changed: changed)
    }

    private func jump(_ line: ParsedLine) throws(LineError) -> Result {
        let token = line.arguments[0]
        guard let index = Int(token.text) else { throw LineError("argument 1 <n> at column \(token.column): “\(token.text)” is not a number (history lists them)") }
        let before = Screens(self)
        do {
            try timeline.jump(to: index)
        } catch {
            return Result(status: .rejected("\(error)"), output: "", changed: [])
        }
        let (changed, output) = Screens(self).changes(since: before)
        return Result(status: .ok, output: (["at \(index)"] + (changed.isEmpty ? [] : [output])).joined(separator: "\n"), changed: changed)
    }

    private func diff(_ line: ParsedLine) throws(LineError) -> Result {
        let entries = timeline.entries
        var index = timeline.current.index
        if line.argument(0) == nil, entries.count < 2 {
            return Result(status: .rejected("no action has been reduced yet, so there is nothing to diff"), output: "", changed: [])
        }
        if let text = line.argument(0) {
            guard let number = Int(text) else { throw LineError("argument 1 [n] at column \(line.arguments[0].column): “\(text)” is not a number") }
            index = number
        }
        guard let position = entries.firstIndex(where: { $0.index == index }), position > 0, let action = entries[position].action else {
            let available = entries.count > 1 ? "actions \(entries[1].index)…\(entries[entries.count - 1].index) are available" : "none yet"
            return Result(status: .rejected("no action \(index) in history (\(available); history lists them)"), output: "", changed: [])
        }
        guard let old = try? timeline.state(at: entries[position - 1].index), let new = try? timeline.state(at: index) else {
            return Result(status: .rejected("action \(index) is no longer kept in history"), output: "", changed: [])
        }
        let change = ValueDiff(old: old, new: new)
        let header = "\(index)  \(Self.plain(ValueRenderer.oneLine(action)))"
        return Result(status: .ok, output: header + "\n" + (change.isEmpty ? "  (no change)" : change.render(oldMarker: "  - ", newMarker: "  + ")), changed: [])
    }

    // MARK: - Recording

    private func startRecording(_ line: ParsedLine) throws(LineError) -> Result {
        guard recording == nil else { return Result(status: .rejected("already recording to \(recording?.path ?? "")"), output: "", changed: []) }
        let includeSecrets = line.argument(1) == "--include-secrets"
        if let flag = line.argument(1), !includeSecrets {
            throw LineError("argument 2 at column \(line.arguments[1].column): unknown option “\(flag)” (only --include-secrets)")
        }
        let path = line.arguments[0].text
        guard FileManager.default.createFile(atPath: path, contents: Data(), attributes: [.posixPermissions: 0o600]) else {
            throw LineError("cannot write “\(path)” (does its folder exist, and may it be written?)")
        }
        recording = Recording(path: path, includeSecrets: includeSecrets)
        return Result(status: .ok, output: "recording to \(path)\(includeSecrets ? " (secrets included)" : " (passwords redacted)")", changed: [])
    }
}

/// The commands typed while recording, written to a script file as they come.
final class Recording {
    let path: String
    let includeSecrets: Bool
    private(set) var lineCount = 0

    init(path: String, includeSecrets: Bool) {
        self.path = path
        self.includeSecrets = includeSecrets
    }

    func record(_ line: String, _ parsed: ParsedLine) {
        guard !["record", "stop"].contains(parsed.spec.name) else { return }
        let text = !includeSecrets && parsed.carriesSecret ? parsed.redacted : line
        guard let handle = FileHandle(forWritingAtPath: path) else { return }
        defer { try? handle.close() }
        _ = try? handle.seekToEnd()
        try? handle.write(contentsOf: Data((text + "\n").utf8))
        lineCount += 1
    }
}
