/// A command of the line language: its name, its arguments and one line of meaning.
public struct CommandSpec: Hashable, Sendable {
    /// What the command is about, for grouping in `help`.
    public enum Group: String, Sendable, CaseIterable {
        case account, login, profile, notes, counter, inspect, time, faults, recording, session
    }

    /// The name typed first: `notes.add`.
    public let name: String
    /// The required arguments, as shown in help: `["<id>", "<text>"]`.
    public let required: [String]
    /// The optional arguments, after the required ones: `["[count]"]`.
    public let optional: [String]
    /// One line of meaning.
    public let summary: String
    /// Its group.
    public let group: Group

    /// `notes.edit <id> <text>`.
    public var usage: String { ([name] + required + optional).joined(separator: " ") }

    /// The index of the argument that is a secret (a password), which must never be written
    /// down in clear; `nil` when the command takes none.
    public var secretArgument: Int? {
        switch name {
        case "login.password": 0
        case "signup": 1
        default: nil
        }
    }

    /// Every command, in the order `help` lists them.
    public static let all: [CommandSpec] = [
        CommandSpec(name: "signup", required: ["<username>", "<password>"], optional: [], summary: "create an account (8+ characters each)", group: .account),
        CommandSpec(name: "login.username", required: ["<text>"], optional: [], summary: "type the username", group: .login),
        CommandSpec(name: "login.password", required: ["<text>"], optional: [], summary: "type the password (never recorded); at a terminal, alone, it asks without echo", group: .login),
        CommandSpec(name: "login.submit", required: [], optional: [], summary: "sign in with what was typed", group: .login),
        CommandSpec(name: "login.ack", required: [], optional: [], summary: "dismiss the sign-in error", group: .login),
        CommandSpec(name: "logout", required: [], optional: [], summary: "sign out", group: .account),
        CommandSpec(name: "profile.load", required: [], optional: [], summary: "load the profile and the posts", group: .profile),
        CommandSpec(name: "profile.retry", required: [], optional: [], summary: "load again what failed", group: .profile),
        CommandSpec(name: "posts.add", required: ["<text>"], optional: [], summary: "publish a post", group: .profile),
        CommandSpec(name: "notes.add", required: ["<text>"], optional: [], summary: "add a note (it opens)", group: .notes),
        CommandSpec(name: "notes.edit", required: ["<id>", "<text>"], optional: [], summary: "change a note's text", group: .notes),
        CommandSpec(name: "notes.delete", required: ["<id>"], optional: [], summary: "delete a note", group: .notes),
        CommandSpec(name: "notes.select", required: ["<id>"], optional: [], summary: "open a note", group: .notes),
        CommandSpec(name: "notes.search", required: ["<query>"], optional: [], summary: "search the notes (\"\" lists all again)", group: .notes),
        CommandSpec(name: "notes.retry", required: ["<id>"], optional: [], summary: "save again a note whose save failed", group: .notes),
        CommandSpec(name: "counter.increment", required: [], optional: [], summary: "add one", group: .counter),
        CommandSpec(name: "counter.decrement", required: [], optional: [], summary: "take one away (never below zero)", group: .counter),
        CommandSpec(name: "counter.reset", required: [], optional: [], summary: "back to zero", group: .counter),
        CommandSpec(name: "help", required: [], optional: ["[command]"], summary: "list the commands, or explain one", group: .session),
        CommandSpec(name: "state", required: [], optional: ["[path]"], summary: "show the app state or a part of it (state notes)", group: .inspect),
        CommandSpec(name: "view", required: ["<screen>"], optional: ["[--all]"], summary: "show a screen: login, session, profile, notes, counter or all (--all: every note)", group: .inspect),
        CommandSpec(name: "expect", required: ["<path>", "<op>", "<value>"], optional: [], summary: "check a screen property: expect counter.count == 2", group: .inspect),
        CommandSpec(name: "wait", required: [], optional: ["[timeout]"], summary: "wait until every running effect finished (default 5s)", group: .time),
        CommandSpec(name: "advance", required: ["<duration>"], optional: [], summary: "move the test clock: advance 300ms", group: .time),
        CommandSpec(name: "fail", required: ["<client.endpoint>"], optional: ["[count]"], summary: "make the next call(s) of an endpoint fail (help fail lists them)", group: .faults),
        CommandSpec(name: "history", required: [], optional: [], summary: "list the actions reduced so far", group: .time),
        CommandSpec(name: "undo", required: [], optional: [], summary: "go back one action (effects are not re-run)", group: .time),
        CommandSpec(name: "redo", required: [], optional: [], summary: "go forward one action", group: .time),
        CommandSpec(name: "jump", required: ["<n>"], optional: [], summary: "go to the state after action n of history", group: .time),
        CommandSpec(name: "diff", required: [], optional: ["[n]"], summary: "what action n (default: the last) changed", group: .time),
        CommandSpec(name: "record", required: ["<file>"], optional: ["[--include-secrets]"], summary: "write the commands typed from now on as a script", group: .recording),
        CommandSpec(name: "stop", required: [], optional: [], summary: "stop recording", group: .recording),
        CommandSpec(name: "quit", required: [], optional: [], summary: "leave (end of input does too)", group: .session),
    ]

    private static let byName: [String: CommandSpec] = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    /// The command named `name`.
    public static func named(_ name: String) -> CommandSpec? { byName[name] }

    /// The command names closest to `name`, for "did you mean" (at most two edits away, or
    /// starting the same way).
    public static func suggestions(for name: String) -> [String] {
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

    /// Reads `line`; `nil` for a blank line or a comment.
    public static func parse(_ line: String) throws(LineError) -> ParsedLine? {
        var text = Substring(line)
        var offset = 0
        while let first = text.unicodeScalars.first, first == " " || first == "\t" {
            text = Substring(text.unicodeScalars.dropFirst())
            offset += 1
        }
        var expectsRejection = false
        if text.hasPrefix("! ") || text == "!" {
            expectsRejection = true
            text = text.dropFirst(1)
            offset += 1
        }
        let tokens = try Tokenizer.tokens(in: text, columnOffset: offset)
        guard let first = tokens.first else {
            if expectsRejection { throw LineError("“!” must be followed by the command expected to be rejected") }
            return nil
        }
        guard let spec = CommandSpec.named(first.text) else {
            var message = "unknown command “\(first.text)” at column \(first.column)"
            let suggestions = CommandSpec.suggestions(for: first.text)
            if !suggestions.isEmpty { message += "; did you mean \(suggestions.map { "“\($0)”" }.joined(separator: " or "))?" }
            message += " (help lists every command)"
            throw LineError(message)
        }
        let arguments = Array(tokens.dropFirst())
        let range = spec.required.count...(spec.required.count + spec.optional.count)
        guard range.contains(arguments.count) else {
            let expected = range.count == 1 ? "\(range.lowerBound)" : "\(range.lowerBound) to \(range.upperBound)"
            var message = "\(spec.name) takes \(expected) argument\(range.upperBound == 1 ? "" : "s") (usage: \(spec.usage)), got \(arguments.count)"
            if arguments.count > range.upperBound, let extra = arguments.dropFirst(range.upperBound).first {
                message += "; the first extra one is “\(extra.text)” at column \(extra.column)"
                if spec.required.last == "<text>" || spec.required.last == "<query>" { message += " — put text with spaces in double quotes" }
            }
            throw LineError(message)
        }
        return ParsedLine(spec: spec, arguments: arguments, expectsRejection: expectsRejection)
    }
}
