import AppEnvironment
import AppHost
import Foundation
import Models
import StateStore

extension ConsoleSession {
    /// The screens that changed since the last command or the last call, rendered.
    public func takeScreenChanges() -> String? {
        let now = ConsoleScreens(self)
        let earlier = display.withLock { display -> ConsoleScreens? in
            guard !display.isExecuting else { return nil }
            defer { display.shown = now }
            return display.shown
        }
        guard let earlier else { return nil }
        let (changed, output) = now.changes(since: earlier)
        return changed.isEmpty ? nil : TerminalText.visible(output)
    }

    /// What resuming from the journal changed (a session that lost its token ended), rendered.
    public var resumedChanges: String? {
        let screens = ConsoleScreens(self)
        let resumed = host.resumed
        return resumed.isEmpty ? nil : TerminalText.visible(resumed.map { screens.render($0) }.joined(separator: "\n"))
    }

    /// Whether effects are still running (a shell shows a spinner meanwhile).
    public var isBusy: Bool { host.store.hasRunningEffects }

    /// Cancels the work of the session's commands that is still running.
    @discardableResult
    public func cancelEffects() -> Int {
        host.cancelRunningIntents()
    }

    /// Who is signed in, for a prompt; `nil` when nobody is.
    public var signedInUsername: String? { host.session.currentSnapshot.username.map(TerminalText.visible) }

    /// The words that could complete the last word of `line`.
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
        let candidates: [String] =
            switch parameters[position] {
            case .note: noteIDs.allShortIDs()
            case .screen: Self.screenNames
            case .endpoint: Endpoint.allCases.map(\.rawValue)
            case .command: CommandSpec.all.map(\.name)
            // The state's parts, as `state` shows them (its coding keys are its properties' names).
            case .statePath: Mirror(reflecting: host.store.currentState).children.compactMap(\.label)
            case .property: ConsoleScreens.properties.map { "\($0.screen.rawValue).\($0.name)" }
            case .comparison: Comparison.allCases.map(\.rawValue)
            case .flag: spec.flags.map(\.rawValue)
            case .text, .secret, .expected, .duration, .count, .historyIndex, .file: []
            }
        return candidates.filter { $0.hasPrefix(partial) }
    }
}
