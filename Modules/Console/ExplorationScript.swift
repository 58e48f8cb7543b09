import AppExploration
import AppHost

extension AppExplorer.Outcome {
    /// The counterexample as a script of the line language that reproduces it in `appcore-batch`.
    public var script: [String] {
        guard violatedInvariant != nil else { return [] }
        let account = AppExplorer.account
        let signUp = AppExplorer.Move(intent: .signUp(username: account.username.rawValue, password: account.password.revealed), failing: nil)
        return signUp.lines + counterexample.flatMap(\.lines)
    }
}

extension AppExplorer.Move {
    /// The move as lines of the line language: `fail notes.create` then `notes.add milk`.
    public var lines: [String] {
        let line = CommandSpec.line(for: intent, notePosition: notePosition)
        return (failing.map { ["\(ConsoleCommand.fail.rawValue) \($0)"] } ?? []) + [(isRefused ? "! " : "") + line]
    }
}
