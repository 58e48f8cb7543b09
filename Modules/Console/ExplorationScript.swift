import AppExploration
import AppHost

extension AppExplorer.Outcome {
    /// The counterexample as a script of the line language that reproduces it in
    /// `appcore-batch`: the exploration's account signed up first, then each move, a failing
    /// one preceded by its `fail` line. Empty when every invariant held.
    public var script: [String] {
        guard violatedInvariant != nil else { return [] }
        let account = AppExplorer.account
        let signUp = "\(Command.signup.rawValue) \(Tokenizer.quoted(account.username.rawValue)) \(Tokenizer.quoted(account.password.revealed))"
        return [signUp] + counterexample.flatMap(\.lines)
    }
}

extension AppExplorer.Move {
    /// The move as lines of the line language: `fail notes.create` then `notes.add milk`.
    public var lines: [String] {
        let note = notePosition.map { "@\($0)" }
        let line: [String] = switch intent {
        case .signUp(let username, let password): [Command.signup.rawValue, username, password]
        case .typeUsername(let username): [Command.loginUsername.rawValue, username]
        case .typePassword(let password): [Command.loginPassword.rawValue, password]
        case .signIn: [Command.loginSubmit.rawValue]
        case .dismissError: [Command.loginAck.rawValue]
        case .signOut: [Command.logout.rawValue]
        case .loadProfile: [Command.profileLoad.rawValue]
        case .retryProfile: [Command.profileRetry.rawValue]
        case .addPost(let text): [Command.postsAdd.rawValue, text]
        case .addNote(let text): [Command.notesAdd.rawValue, text]
        case .editNote(let id, let text): [Command.notesEdit.rawValue, note ?? id.description, text]
        case .deleteNote(let id): [Command.notesDelete.rawValue, note ?? id.description]
        case .selectNote(let id): [Command.notesSelect.rawValue, note ?? id?.description ?? ""]
        case .searchNotes(let query): [Command.notesSearch.rawValue, query]
        case .retryNote(let id): [Command.notesRetry.rawValue, note ?? id.description]
        case .increment: [Command.counterIncrement.rawValue]
        case .decrement: [Command.counterDecrement.rawValue]
        case .reset: [Command.counterReset.rawValue]
        }
        let words = [line[0]] + line.dropFirst().map(Tokenizer.quoted)
        return (failing.map { ["\(Command.fail.rawValue) \($0)"] } ?? []) + [(isRefused ? "! " : "") + words.joined(separator: " ")]
    }
}
