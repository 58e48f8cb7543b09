import AppEnvironment
import Foundation
import Models
import StateStore

extension ConsoleSession {
    /// The screens that changed since the last command or the last call, rendered; `nil` when
    /// nothing changed. An interactive shell calls it when effects finish in the background.
    public func takeScreenChanges() -> String? {
        let now = Screens(self)
        let earlier = shown.withLock { shown -> Screens? in
            defer { shown = now }
            return shown
        }
        guard let earlier else { return nil }
        let (changed, output) = now.changes(since: earlier)
        return changed.isEmpty ? nil : output
    }

    /// Tells the app it started again from a journal (`Session.Action.restored`, which ends a
    /// session that lost its token) and returns the screens that changed, rendered; `nil` when
    /// nothing changed. A shell calls it once, after it starts recording the journal.
    public func resumeAfterRestart() async -> String? {
        let result = await send(.session(.restored))
        shown.withLock { $0 = result.screens }
        return result.output.isEmpty ? nil : result.output
    }

    /// Whether effects are still running (a shell shows a spinner meanwhile).
    public var isBusy: Bool { store.hasRunningEffects }

    /// Cancels every effect the session's commands started and that is still running; returns
    /// how many were running.
    @discardableResult
    public func cancelEffects() -> Int {
        let running = store.runningEffects.count
        let tasks = inFlight.withLock { tasks in
            defer { tasks.removeAll() }
            return tasks
        }
        tasks.forEach { $0.cancel() }
        return running
    }

    /// Who is signed in, for a prompt; `nil` when nobody is.
    public var signedInUsername: String? { session.currentSnapshot.username }

    /// The words that could complete the last word of `line`: command names first, then what
    /// the command's argument at that position accepts (note ids, screens, endpoints, commands).
    public func completions(for line: String) -> [String] {
        let endsWithSpace = line.last?.isWhitespace ?? false
        var words = line.split(whereSeparator: \.isWhitespace).map(String.init)
        if words.first == "!" { words.removeFirst() }
        let partial = endsWithSpace ? "" : (words.popLast() ?? "")
        guard let command = words.first else {
            return CommandSpec.all.map(\.name).filter { $0.hasPrefix(partial) }
        }
        guard let spec = CommandSpec.named(command) else { return [] }
        let position = words.count - 1
        let parameters = spec.required + spec.optional
        guard position < parameters.count else { return [] }
        let candidates: [String]
        switch parameters[position] {
        case "<id>":
            candidates = noteIDs.allShortIDs()
        case "<screen>": candidates = Screens.names + ["all"]
        case "<client.endpoint>": candidates = Endpoint.allCases.map(\.rawValue)
        case "[command]": candidates = CommandSpec.all.map(\.name)
        case "[path]": candidates = ["login", "session", "profile", "posts", "notes", "counter"]
        case "<path>": candidates = Screens.names.flatMap { name in
            (Screens.propertyNames[name] ?? []).map { "\(name).\($0)" }
        }
        case "<op>": candidates = ["==", "!=", "<", "<=", ">", ">=", "contains"]
        default: candidates = []
        }
        return candidates.filter { $0.hasPrefix(partial) }
    }
}
