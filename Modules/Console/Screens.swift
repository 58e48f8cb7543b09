import Foundation
import Models
import ViewModels

/// Every screen's snapshot at one moment, and how each renders as text.
struct Screens: Equatable {
    /// The screen names `view` accepts, in the order `view all` shows them.
    static let names = ["login", "session", "profile", "notes", "counter"]

    let login: LoginViewModel.Snapshot
    let session: SessionViewModel.Snapshot
    let profile: ProfileViewModel.Snapshot
    let notes: NotesViewModel.Snapshot
    let counter: CounterViewModel.Snapshot

    init(_ console: ConsoleSession) {
        login = console.login.snapshot
        session = console.session.snapshot
        profile = console.profile.snapshot
        notes = console.notes.snapshot
        counter = console.counter.snapshot
    }

    /// The names of the screens that differ from `earlier`.
    func changed(since earlier: Screens) -> [String] {
        var names: [String] = []
        if login != earlier.login { names.append("login") }
        if session != earlier.session { names.append("session") }
        if profile != earlier.profile { names.append("profile") }
        if notes != earlier.notes { names.append("notes") }
        if counter != earlier.counter { names.append("counter") }
        return names
    }

    /// The properties of screen `name` by their names, for `expect`.
    func properties(of name: String) -> [String: Any]? {
        switch name {
        case "login": [
            "username": login.username, "maskedPassword": login.maskedPassword, "hasValidCredentials": login.hasValidCredentials,
            "isBusy": login.isBusy, "isAuthenticated": login.isAuthenticated, "errorMessage": login.errorMessage as Any,
            "isSignInEnabled": login.isSignInEnabled, "credentialsHint": login.credentialsHint as Any,
        ]
        case "session": [
            "isSignedIn": session.isSignedIn, "username": session.username as Any, "displayName": session.displayName as Any,
            "message": session.message as Any,
        ]
        case "profile": [
            "status": profile.status.rawValue, "rows": profile.rows, "postCount": profile.postCount, "canAddPost": profile.canAddPost,
        ]
        case "notes": [
            "rows": notes.rows, "count": notes.count, "selectedID": notes.selectedID as Any, "selectedText": notes.selectedText as Any,
            "searchQuery": notes.searchQuery, "isSearching": notes.isSearching, "isLoading": notes.isLoading,
            "errorMessage": notes.errorMessage as Any, "isEmpty": notes.isEmpty, "emptyMessage": notes.emptyMessage as Any,
        ]
        case "counter": ["count": counter.count, "canDecrement": counter.canDecrement]
        default: nil
        }
    }

    /// A property's value as `expect` compares it: `nil`, `true`, `3`, `loaded`, the text itself.
    static func describe(_ value: Any) -> String {
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional {
            guard let wrapped = mirror.children.first?.value else { return "nil" }
            return describe(wrapped)
        }
        if mirror.displayStyle == .collection { return "\(mirror.children.count) items" }
        return "\(value)"
    }

    // MARK: - Rendering

    func render(_ name: String) -> String {
        switch name {
        case "login": renderLogin()
        case "session": renderSession()
        case "profile": renderProfile()
        case "notes": renderNotes()
        case "counter": renderCounter()
        default: ""
        }
    }

    private func renderLogin() -> String {
        var facts: [String] = []
        facts.append(login.hasValidCredentials ? "valid" : "not valid yet")
        if login.isBusy { facts.append("signing in…") }
        if login.isAuthenticated { facts.append("signed in") }
        facts.append(login.isSignInEnabled ? "sign in enabled" : "sign in disabled")
        var lines = ["login: username \(Self.quote(login.username)), password \(login.maskedPassword.isEmpty ? "(empty)" : login.maskedPassword); \(facts.joined(separator: ", "))"]
        if let hint = login.credentialsHint { lines.append("  hint: \(hint)") }
        if let error = login.errorMessage { lines.append("  error: \(error) (login.ack to dismiss)") }
        return lines.joined(separator: "\n")
    }

    private func renderSession() -> String {
        var line = "session: "
        if session.isSignedIn, let username = session.username {
            line += "signed in as \(username)"
            if let name = session.displayName, name != username { line += " (\(name))" }
        } else {
            line += "signed out"
        }
        if let message = session.message { line += "\n  \(message)" }
        return line
    }

    private func renderProfile() -> String {
        var lines = ["profile: \(profile.status.rawValue), \(profile.postCount) post\(profile.postCount == 1 ? "" : "s")"]
        for row in profile.rows {
            switch row {
            case .header(let displayName, let username, let bio):
                lines.append("  \(displayName) @\(username)\(bio.isEmpty ? "" : " — \(bio)")")
            case .post(_, let text, let publishedAt):
                lines.append("  - \(Self.oneLine(text)) (\(publishedAt))")
            case .draft(let text, let isSending, let error):
                lines.append("  - \(Self.oneLine(text)) " + (isSending ? "(publishing…)" : "(not published: \(error ?? "failed"); posts.add again to retry)"))
            case .loading:
                lines.append("  loading…")
            case .error(let message, let canRetry):
                lines.append("  error: \(message)\(canRetry ? " (profile.retry)" : "")")
            }
        }
        return lines.joined(separator: "\n")
    }

    private func renderNotes() -> String {
        var header = "notes: \(notes.count) note\(notes.count == 1 ? "" : "s")"
        if !notes.searchQuery.isEmpty { header += " matching \(Self.quote(notes.searchQuery))\(notes.isSearching ? " (searching…)" : "")" }
        if notes.isLoading { header += " (loading…)" }
        var lines = [header]
        let ids = notes.rows.map(\.id)
        for row in notes.rows {
            var line = "  \(row.isSelected ? "*" : " ") \(Self.shortID(row.id, among: ids))  \(row.title)"
            if !row.preview.isEmpty { line += " — \(row.preview)" }
            line += "  (\(row.updatedAt))"
            if row.isPending { line += " saving…" }
            if row.isUnsaved { line += " NOT SAVED: \(row.unsavedReason ?? "failed") (notes.retry)" }
            lines.append(line)
        }
        if let empty = notes.emptyMessage { lines.append("  \(empty)") }
        if let error = notes.errorMessage { lines.append("  error: \(error)") }
        return lines.joined(separator: "\n")
    }

    private func renderCounter() -> String {
        "counter: \(counter.count)\(counter.canDecrement ? "" : " (cannot go lower)")"
    }

    // MARK: - Helpers

    static func quote(_ text: String) -> String { "\"" + text + "\"" }

    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).joined(separator: " ⏎ ")
    }

    /// The shortest end of `id` (4 characters or more) that no other id in `ids` ends with.
    static func shortID(_ id: Note.ID, among ids: [Note.ID]) -> String {
        let full = id.description.replacingOccurrences(of: "-", with: "")
        let others = ids.filter { $0 != id }.map { $0.description.replacingOccurrences(of: "-", with: "") }
        for length in 4...full.count {
            let suffix = String(full.suffix(length))
            if !others.contains(where: { $0.hasSuffix(suffix) }) { return suffix }
        }
        return id.description
    }
}
