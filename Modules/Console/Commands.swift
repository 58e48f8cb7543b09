/// The commands of the line language. Adding one is a case here, its row in ``spec``, and its
/// case in the session's switch, all three checked by the compiler.
public enum Command: String, CaseIterable, Sendable {
    case signup
    case loginUsername = "login.username"
    case loginPassword = "login.password"
    case loginSubmit = "login.submit"
    case loginAck = "login.ack"
    case logout
    case profileLoad = "profile.load"
    case profileRetry = "profile.retry"
    case postsAdd = "posts.add"
    case notesAdd = "notes.add"
    case notesEdit = "notes.edit"
    case notesDelete = "notes.delete"
    case notesSelect = "notes.select"
    case notesSearch = "notes.search"
    case notesRetry = "notes.retry"
    case counterIncrement = "counter.increment"
    case counterDecrement = "counter.decrement"
    case counterReset = "counter.reset"
    case help, state, view, expect, wait, advance, fail, history, undo, redo, jump, diff, record, stop, quit

    /// The command's name, arguments, meaning and group.
    public var spec: CommandSpec {
        switch self {
        case .signup: CommandSpec(self, ["<username>", "<password>"], "create an account (8+ characters each)", .account, secret: 1)
        case .loginUsername: CommandSpec(self, ["<text>"], "type the username", .login)
        case .loginPassword: CommandSpec(self, ["<text>"], "type the password (never recorded); at a terminal, alone, it asks without echo", .login, secret: 0)
        case .loginSubmit: CommandSpec(self, [], "sign in with what was typed", .login)
        case .loginAck: CommandSpec(self, [], "dismiss the sign-in error", .login)
        case .logout: CommandSpec(self, [], "sign out", .account)
        case .profileLoad: CommandSpec(self, [], "load the profile and the posts", .profile)
        case .profileRetry: CommandSpec(self, [], "load again what failed", .profile)
        case .postsAdd: CommandSpec(self, ["<text>"], "publish a post", .profile)
        case .notesAdd: CommandSpec(self, ["<text>"], "add a note (it opens)", .notes)
        case .notesEdit: CommandSpec(self, ["<id>", "<text>"], "change a note's text (an <id> is digits of the id, or @N for the N-th note listed)", .notes)
        case .notesDelete: CommandSpec(self, ["<id>"], "delete a note", .notes)
        case .notesSelect: CommandSpec(self, ["<id>"], "open a note", .notes)
        case .notesSearch: CommandSpec(self, ["<query>"], "search the notes (\"\" lists all again)", .notes)
        case .notesRetry: CommandSpec(self, ["<id>"], "save again a note whose save failed", .notes)
        case .counterIncrement: CommandSpec(self, [], "add one", .counter)
        case .counterDecrement: CommandSpec(self, [], "take one away (never below zero)", .counter)
        case .counterReset: CommandSpec(self, [], "back to zero", .counter)
        case .help: CommandSpec(self, [], optional: ["[command]"], "list the commands, or explain one", .session)
        case .state: CommandSpec(self, [], optional: ["[path]"], "show the app state or a part of it (state notes)", .inspect)
        case .view: CommandSpec(self, ["<screen>"], optional: ["[--all]"], "show a screen: login, session, profile, notes, counter or all (--all: every note)", .inspect)
        case .expect: CommandSpec(self, ["<path>", "<op>", "<value>"], "check a screen property: expect counter.count == 2", .inspect)
        case .wait: CommandSpec(self, [], optional: ["[timeout]"], "wait until every running effect finished (default 5s)", .time)
        case .advance: CommandSpec(self, ["<duration>"], "move the test clock: advance 300ms", .time)
        case .fail: CommandSpec(self, ["<client.endpoint>"], optional: ["[count]"], "make the next call(s) of an endpoint fail (help fail lists them)", .faults)
        case .history: CommandSpec(self, [], optional: ["[--full]"], "list the actions reduced so far, one line each (--full: each whole)", .time)
        case .undo: CommandSpec(self, [], "go back one action (effects are not re-run)", .time)
        case .redo: CommandSpec(self, [], "go forward one action", .time)
        case .jump: CommandSpec(self, ["<n>"], "go to the state after action n of history", .time)
        case .diff: CommandSpec(self, [], optional: ["[n]"], "what action n (default: the last) changed", .time)
        case .record: CommandSpec(self, ["<file>"], optional: ["[--include-secrets]", "[--force]"], "write the commands typed from now on as a script (--force replaces an existing file)", .recording)
        case .stop: CommandSpec(self, [], "stop recording", .recording)
        case .quit: CommandSpec(self, [], "leave (end of input does too)", .session)
        }
    }
}

/// A command of the line language: its name, its arguments and one line of meaning.
public struct CommandSpec: Hashable, Sendable {
    /// What the command is about, for grouping in `help`.
    public enum Group: String, Sendable, CaseIterable {
        case account, login, profile, notes, counter, inspect, time, faults, recording, session
    }

    /// The command.
    public let command: Command
    /// The required arguments, as shown in help: `["<id>", "<text>"]`.
    public let required: [String]
    /// The optional arguments, after the required ones: `["[count]"]`.
    public let optional: [String]
    /// One line of meaning.
    public let summary: String
    /// Its group.
    public let group: Group
    /// The index of the argument that is a secret (a password), which must never be written
    /// down in clear; `nil` when the command takes none.
    public let secretArgument: Int?

    init(_ command: Command, _ required: [String], optional: [String] = [], _ summary: String, _ group: Group, secret: Int? = nil) {
        self.command = command
        self.required = required
        self.optional = optional
        self.summary = summary
        self.group = group
        secretArgument = secret
    }

    /// The name typed first: `notes.add`.
    public var name: String { command.rawValue }

    /// `notes.edit <id> <text>`.
    public var usage: String { ([name] + required + optional).joined(separator: " ") }

    /// Every command, in the order `help` lists them.
    public static let all: [CommandSpec] = Command.allCases.map(\.spec)

    /// The command named `name`.
    public static func named(_ name: String) -> CommandSpec? { byName[name] }

    /// Every command by name: a hashed lookup, where `Command(rawValue:)` compares the name
    /// with each command's in turn, on every line.
    private static let byName = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

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
    /// Whether the line started with `! `: the command must be rejected for the script to pass.
    public let expectsRejection: Bool

    /// The argument at `index`, if given.
    public func argument(_ index: Int) -> String? {
        index < arguments.count ? arguments[index].text : nil
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

    /// Whether `line` may be kept as typed, in a history file for instance: it reads as a
    /// command and holds no secret. A line that does not read is not kept either, since a
    /// misspelt `login.pasword` may still hold a password.
    public static func mayBeKept(_ line: String) -> Bool {
        guard let parsed = try? parse(line) else { return false }
        return !parsed.carriesSecret
    }

    /// `line` as a transcript or log may show it: with the secret argument replaced by
    /// `<redacted>` when it reads. A line that does not read (a misspelt command, a missing
    /// quote, `login.password=X`) may hold a password anywhere, so only its command's name
    /// shows and every other word is `<redacted>`.
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
        let name = word.unicodeScalars.prefix { $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil || "._-".unicodeScalars.contains($0)) }
        return name.count == word.unicodeScalars.count ? word : String(String.UnicodeScalarView(name)) + "<redacted>"
    }

    /// The longest line the language reads, in bytes.
    public static let maximumLength = 65_536

    /// Reads `line`; `nil` for a blank line or a comment. A line longer than ``maximumLength``
    /// bytes is refused without being read.
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
            let expected = range.count == 1 ? "\(range.lowerBound)" : "\(range.lowerBound) to \(range.upperBound)"
            var message = "\(spec.name) takes \(expected) argument\(range.upperBound == 1 ? "" : "s") (usage: \(spec.usage)), got \(arguments.count)"
            if arguments.count > range.upperBound, let extra = arguments.dropFirst(range.upperBound).first {
                // Never quote what may be a password.
                message += spec.secretArgument == nil ? "; the first extra one is “\(extra.text)” at column \(extra.column)" : "; the first extra one is at column \(extra.column)"
                if spec.required.last == "<text>" || spec.required.last == "<query>" { message += " — put text with spaces in double quotes" }
            }
            throw LineError(message)
        }
        return ParsedLine(spec: spec, arguments: arguments, expectsRejection: expectsRejection)
    }
}
