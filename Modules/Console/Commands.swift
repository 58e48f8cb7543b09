import AppHost

/// A command of the line language: one per ``intent(_:)`` kind, then the console's own.
public enum Command: Hashable, Sendable, CaseIterable {
    /// Asks the app for an intent of this kind.
    case intent(Intent.Kind)
    /// One of the console's own commands (help, inspection, time, faults, recording).
    case console(ConsoleCommand)

    /// Every command: the intents in their declared order, then the console's own.
    public static let allCases: [Command] = Intent.Kind.allCases.map(Command.intent) + ConsoleCommand.allCases.map(Command.console)

    /// The command's name, arguments, meaning and group.
    public var spec: CommandSpec {
        switch self {
        case .intent(let kind): kind.commandSpec
        case .console(let command): command.spec
        }
    }
}

extension Intent.Kind {
    /// The intent as a command of the line language, from its spec: its name, its group (its
    /// screen's), its arguments and its summary, with what the console adds.
    var commandSpec: CommandSpec {
        let spec = self.spec
        let group: CommandSpec.Group =
            switch spec.screen {
            case .login: .login
            case .session: .account
            case .profile: .profile
            case .notes: .notes
            case .counter: .counter
            }
        var required: [CommandSpec.Parameter] = [], optional: [CommandSpec.Parameter] = []
        for parameter in parameters {
            switch parameter.value {
            case .text where textMayBeLeftOut: optional.append(.text(parameter.label))
            case .text: required.append(.text(parameter.label))
            case .secret: required.append(.secret(parameter.label))
            case .note: required.append(.note)
            case .optionalNote: optional.append(.note)
            }
        }
        var summary = self.summary
        if parameters.contains(where: { $0.value == .secret }) { summary += "; the password is never recorded" }
        if self == .typePassword { summary += "; at a terminal, alone, it asks without echo" }
        return CommandSpec(.intent(self), name: spec.commandName, required, optional: optional, summary, group)
    }

    /// Whether a line may leave out the intent's text, which then reads as empty: a search's
    /// query, so that `notes.search` alone lists every note again.
    private var textMayBeLeftOut: Bool {
        self == .searchNotes || self == .typeNotesSearch
    }
}

/// The console's own commands.
public enum ConsoleCommand: String, CaseIterable, Hashable, Sendable {
    case help, state, view, expect, wait, advance, fail, history, undo, redo, jump, diff, record, stop, quit

    /// The command's name, arguments, meaning and group.
    public var spec: CommandSpec {
        let command = Command.console(self)
        let name = rawValue
        return switch self {
        case .help: CommandSpec(command, name: name, [], optional: [.command], "list the commands, or explain one", .session)
        case .state: CommandSpec(command, name: name, [], optional: [.statePath], "show the app state or a part of it (state notes)", .inspect)
        case .view:
            CommandSpec(
                command, name: name, [.screen], optional: [.flag(.all)], "show a screen: login, session, profile, notes, counter or all (--all: every note)",
                .inspect)
        case .expect: CommandSpec(command, name: name, [.property, .comparison, .expected], "check a screen property: expect counter.count == 2", .inspect)
        case .wait: CommandSpec(command, name: name, [], optional: [.duration("timeout")], "wait until every running effect finished (default 5s)", .time)
        case .advance: CommandSpec(command, name: name, [.duration("duration")], "move the test clock: advance 300ms", .time)
        case .fail:
            CommandSpec(command, name: name, [.endpoint], optional: [.count], "make the next call(s) of an endpoint fail (help fail lists them)", .faults)
        case .history:
            CommandSpec(command, name: name, [], optional: [.flag(.full)], "list the actions reduced so far, one line each (--full: each whole)", .time)
        case .undo: CommandSpec(command, name: name, [], "go back one action (effects are not re-run)", .time)
        case .redo: CommandSpec(command, name: name, [], "go forward one action", .time)
        case .jump: CommandSpec(command, name: name, [.historyIndex], "go to the state after action n of history", .time)
        case .diff: CommandSpec(command, name: name, [], optional: [.historyIndex], "what action n (default: the last) changed", .time)
        case .record:
            CommandSpec(
                command, name: name, [.file], optional: [.flag(.includeSecrets), .flag(.force)],
                "write the commands typed from now on as a script (--force replaces an existing file)", .recording)
        case .stop: CommandSpec(command, name: name, [], "stop recording", .recording)
        case .quit: CommandSpec(command, name: name, [], "leave (end of input does too)", .session)
        }
    }
}

/// The comparisons `expect` makes.
public enum Comparison: String, CaseIterable, Sendable {
    case equal = "==", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">=", contains

    /// Whether `actual` compares so with `expected`; `nil` when a number is not one.
    func holds(_ actual: String, _ expected: String) -> Bool? {
        switch self {
        case .equal: return actual == expected
        case .notEqual: return actual != expected
        case .contains: return actual.contains(expected)
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            guard let left = Double(actual), let right = Double(expected) else { return nil }
            return switch self {
            case .less: left < right
            case .lessOrEqual: left <= right
            case .greater: left > right
            default: left >= right
            }
        }
    }

    /// Every comparison, as typed: `==, !=, <, <=, >, >=, contains`.
    static let list = allCases.map(\.rawValue).joined(separator: ", ")
}

/// A command of the line language: its name, its arguments and one line of meaning.
public struct CommandSpec: Hashable, Sendable {
    /// What the command is about, for grouping in `help`.
    public enum Group: String, Sendable, CaseIterable {
        case account, login, profile, notes, counter, inspect, time, faults, recording, session
    }

    /// What one argument of a command is, which says how it reads, completes and shows.
    public enum Parameter: Hashable, Sendable {
        /// Text, shown as typed; named for help (`text`, `query`, `username`).
        case text(String)
        /// A password: never recorded or shown in clear.
        case secret(String)
        /// A note: digits of its id, or `@N` for the N-th listed.
        case note
        /// A screen's name, or `all`.
        case screen
        /// An option that is there or not.
        case flag(Flag)
        /// A command's name.
        case command
        /// A path into the app's state: `notes.items`.
        case statePath
        /// A screen property: `counter.count`.
        case property
        /// A comparison (``Comparison``).
        case comparison
        /// The value a property is compared with.
        case expected
        /// A duration (`300ms`, `2s`), named for help.
        case duration(String)
        /// A client endpoint: `notes.create`.
        case endpoint
        /// How many times.
        case count
        /// A position in history.
        case historyIndex
        /// A file's path.
        case file

        /// The word help shows for it: `id`, `screen`, `--all`.
        public var name: String {
            switch self {
            case .text(let name), .secret(let name), .duration(let name): name
            case .note: "id"
            case .screen: "screen"
            case .flag(let flag): flag.rawValue
            case .command: "command"
            case .statePath: "path"
            case .property: "path"
            case .comparison: "op"
            case .expected: "value"
            case .endpoint: "client.endpoint"
            case .count: "count"
            case .historyIndex: "n"
            case .file: "file"
            }
        }
    }

    /// The options commands take.
    public enum Flag: String, Hashable, Sendable, CaseIterable {
        case all = "--all", full = "--full", force = "--force", includeSecrets = "--include-secrets"

        var meaning: String {
            switch self {
            case .all: "lists every note"
            case .full: "shows each action whole"
            case .force: "replaces an existing file"
            case .includeSecrets: "records passwords as typed"
            }
        }
    }

    /// The command.
    public let command: Command
    /// The name typed first: `notes.add`.
    public let name: String
    /// The required arguments, in order.
    public let required: [Parameter]
    /// The optional arguments, after the required ones.
    public let optional: [Parameter]
    /// One line of meaning.
    public let summary: String
    /// Its group.
    public let group: Group

    init(_ command: Command, name: String, _ required: [Parameter], optional: [Parameter] = [], _ summary: String, _ group: Group) {
        self.command = command
        self.name = name
        self.required = required
        self.optional = optional
        self.summary = summary
        self.group = group
    }

    /// The index of the argument that is a secret (a password), which must never be written
    /// down in clear; `nil` when the command takes none.
    public var secretArgument: Int? {
        required.firstIndex { if case .secret = $0 { true } else { false } }
    }

    var flags: [Flag] {
        optional.compactMap { if case .flag(let flag) = $0 { flag } else { nil } }
    }

    /// `notes.edit <id> <text>`, `view <screen> [--all]`.
    public var usage: String {
        ([name] + required.map { "<\($0.name)>" } + optional.map { "[\($0.name)]" }).joined(separator: " ")
    }

    /// How help shows the argument at `index`: `<id>`, `[count]`.
    func placeholder(_ index: Int) -> String {
        index < required.count ? "<\(required[index].name)>" : "[\(optional[index - required.count].name)]"
    }

    /// What an `<id>` argument accepts, said once in help.
    static let noteIDHelp = "An <id> is digits of a note's id (its start or end), or @N for the N-th note listed."

    var takesNote: Bool { (required + optional).contains(.note) }

    /// Every command, in the order `help` lists them.
    public static let all: [CommandSpec] = Command.allCases.map(\.spec)

    /// The command named `name`.
    public static func named(_ name: String) -> CommandSpec? { byName[name] }

    /// The command that asks for intents of `kind`.
    public static func of(_ kind: Intent.Kind) -> CommandSpec { byKind[kind] ?? kind.commandSpec }

    /// The line that asks for `intent`.
    public static func line(for intent: Intent, notePosition: Int? = nil) -> String {
        let words = intent.arguments.compactMap { argument -> String? in
            switch argument {
            case .text(let text): text
            case .note(nil): nil
            case .note(let id?): notePosition.map { "@\($0)" } ?? id.description
            }
        }
        return ParsedLine.line(of(intent.kind).name, arguments: words)
    }

    /// Every command by name, looked up by hash on every line.
    private static let byName = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })
    private static let byKind = Dictionary(uniqueKeysWithValues: Intent.Kind.allCases.map { ($0, $0.commandSpec) })

    /// The command names closest to `name`, for "did you mean" (at most two edits away, or
    /// starting the same way).
    public static func suggestions(for name: String) -> [String] {
        // A word far longer than any command is not a misspelling of one.
        guard name.utf8.count <= 64 else { return [] }
        let scored = all.map { ($0.name, editDistance($0.name, name)) }
        let close = scored.filter { $0.1 <= max(2, name.count / 4) }.sorted { $0.1 < $1.1 }.map(\.0)
        if !close.isEmpty { return Array(close.prefix(3)) }
        return all.map(\.name).filter { $0.hasPrefix(name) && !name.isEmpty }.prefix(3).map { $0 }
    }
}

/// Levenshtein distance between two names.
func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    guard !a.isEmpty else { return b.count }
    guard !b.isEmpty else { return a.count }
    var previous = Array(0...b.count)
    for i in 1...a.count {
        var current = [i] + Array(repeating: 0, count: b.count)
        for j in 1...b.count {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        previous = current
    }
    return previous[b.count]
}

/// A line read: the command, its arguments, and whether the script expects it to be rejected.
public struct ParsedLine: Hashable, Sendable {
    /// The command.
    public let spec: CommandSpec
    /// Its arguments, in order.
    public let arguments: [Token]
    /// Whether the line started with `!
    public let expectsRejection: Bool

    /// The argument at `index`, if given.
    public func argument(_ index: Int) -> String? {
        index < arguments.count ? arguments[index].text : nil
    }

    /// The options given after the command's arguments, or an error naming one that is not.
    func flags() throws(LineError) -> Set<CommandSpec.Flag> {
        let positional = spec.required.count + spec.optional.count - spec.flags.count
        var flags: Set<CommandSpec.Flag> = []
        for (index, token) in arguments.enumerated().dropFirst(positional) {
            guard let flag = CommandSpec.Flag(rawValue: token.text), spec.flags.contains(flag) else {
                let known = spec.flags.map { "\($0.rawValue), which \($0.meaning)" }.joined(separator: "; ")
                throw LineError(
                    "argument \(index + 1) at column \(token.column): unknown option “\(token.text)” (\(spec.flags.count == 1 ? "only " : "")\(known))")
            }
            flags.insert(flag)
        }
        return flags
    }

    /// Whether the line holds a secret.
    public var carriesSecret: Bool {
        spec.secretArgument.map { $0 < arguments.count } ?? false
    }

    /// The line rebuilt from its words with the secret, if any, replaced by `<redacted>`.
    public var redacted: String {
        let words = arguments.enumerated().map { index, token in index == spec.secretArgument ? "<redacted>" : token.text }
        return (expectsRejection ? "! " : "") + Self.line(spec.name, arguments: words)
    }

    /// A line running `command` with `arguments`, each quoted where the language needs it.
    public static func line(_ command: String, arguments: [String]) -> String {
        ([command] + arguments.map(Tokenizer.quoted)).joined(separator: " ")
    }

    /// Whether `line` may be kept as typed, in a history file for instance.
    public static func mayBeKept(_ line: String) -> Bool {
        guard let parsed = try? parse(line) else { return false }
        return !parsed.carriesSecret
    }

    /// `line` as a transcript or log may show it.
    public static func displayable(_ line: String) -> String {
        if let parsed = try? parse(line) {
            return parsed.carriesSecret ? parsed.redacted : line
        }
        var words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        let commandIndex = words.first == "!" ? 1 : 0
        guard commandIndex < words.count else { return line }
        words[commandIndex] = shownName(words[commandIndex])
        for index in (commandIndex + 1)..<words.count { words[index] = "<redacted>" }
        return words.joined(separator: " ")
    }

    /// The part of a command word that may be shown: its leading letters, digits, `.`, `-` and
    /// `_`, then `<redacted>` for the rest if there is any (`login.password=X` holds a secret).
    static func shownName(_ word: String) -> String {
        let name = word.unicodeScalars.prefix {
            $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil || "._-".unicodeScalars.contains($0))
        }
        return name.count == word.unicodeScalars.count ? word : String(String.UnicodeScalarView(name)) + "<redacted>"
    }

    /// The longest line the language reads, in bytes.
    public static let maximumLength = 65_536

    /// Reads `line`; `nil` for a blank line or a comment.
    public static func parse(_ line: String) throws(LineError) -> ParsedLine? {
        guard line.utf8.count <= maximumLength else {
            throw LineError("the line is \(line.utf8.count) bytes long; a line may have at most \(maximumLength)")
        }
        var text = Substring(line)
        var offset = 0
        while let first = text.unicodeScalars.first, first == " " || first == "\t" {
            text = Substring(text.unicodeScalars.dropFirst())
            offset += 1
        }
        var expectsRejection = false
        // `text.hasPrefix("! ") || text == "!"`, without comparing characters on every line.
        if text.utf8.first == UInt8(ascii: "!"), text.utf8.dropFirst().first.map({ $0 == UInt8(ascii: " ") }) ?? true {
            expectsRejection = true
            text = text.dropFirst(1)
            offset += 1
        }
        var arguments = try Tokenizer.tokens(in: text, columnOffset: offset)
        guard !arguments.isEmpty else {
            if expectsRejection { throw LineError("“!” must be followed by the command expected to be rejected") }
            return nil
        }
        let first = arguments.removeFirst()
        guard let spec = CommandSpec.named(first.text) else {
            // The word may run into a secret (`login.password=X`): only its name part shows.
            var message = "unknown command “\(Self.shownName(first.text))” at column \(first.column)"
            let suggestions = CommandSpec.suggestions(for: Self.shownName(first.text).replacingOccurrences(of: "<redacted>", with: ""))
            if !suggestions.isEmpty { message += "; did you mean \(suggestions.map { "“\($0)”" }.joined(separator: " or "))?" }
            message += " (help lists every command)"
            throw LineError(message)
        }
        let range = spec.required.count...(spec.required.count + spec.optional.count)
        guard range.contains(arguments.count) else {
            let expected =
                range.count == 1
                ? "\(range.lowerBound)" : range.lowerBound == 0 ? "at most \(range.upperBound)" : "\(range.lowerBound) to \(range.upperBound)"
            var message = "\(spec.name) takes \(expected) argument\(range.upperBound == 1 ? "" : "s") (usage: \(spec.usage)), got \(arguments.count)"
            if arguments.count > range.upperBound, let extra = arguments.dropFirst(range.upperBound).first {
                // Never quote what may be a password.
                message +=
                    spec.secretArgument == nil
                    ? "; the first extra one is “\(extra.text)” at column \(extra.column)" : "; the first extra one is at column \(extra.column)"
                if case .text = (spec.required + spec.optional).last { message += " — put text with spaces in double quotes" }
            }
            throw LineError(message)
        }
        return ParsedLine(spec: spec, arguments: arguments, expectsRejection: expectsRejection)
    }
}
