import Foundation
import Models
import ViewModels

/// Every screen's snapshot at one moment, and how each renders as text.
///
/// A class: results carry it through several async calls per line, and copying five snapshots
/// each time showed up in the batch runner's profile.
final class Screens: Sendable, Equatable {
    /// The screen names `view` accepts, in the order `view all` shows them.
    static let names = ["login", "session", "profile", "notes", "counter"]

    /// How many notes a screen lists before it says how many more there are.
    static let pageSize = 20

    let login: LoginViewModel.Snapshot
    let session: SessionViewModel.Snapshot
    let profile: ProfileViewModel.Snapshot
    let notes: NotesViewModel.Snapshot
    let counter: CounterViewModel.Snapshot
    /// The short ids the notes are shown with.
    let noteIDs: NoteIDs

    /// The screens as they are now. Read without registering for Observation: the console
    /// compares screens after each line, and a tracked read would make every later change
    /// notify Observation for nobody.
    init(_ console: ConsoleSession) {
        login = console.login.currentSnapshot
        session = console.session.currentSnapshot
        profile = console.profile.currentSnapshot
        notes = console.notes.currentSnapshot
        counter = console.counter.currentSnapshot
        noteIDs = console.noteIDs
    }

    static func == (lhs: Screens, rhs: Screens) -> Bool {
        lhs === rhs || lhs.changed(since: rhs).isEmpty
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

    /// The properties `expect` can check, by screen name.
    static let propertyNames: [String: [String]] = [
        "login": ["credentialsHint", "errorMessage", "hasValidCredentials", "isAuthenticated", "isBusy", "isSignInEnabled", "maskedPassword", "username"],
        "session": ["displayName", "isSignedIn", "message", "username"],
        "profile": ["canAddPost", "postCount", "rows", "status"],
        "notes": ["count", "emptyMessage", "errorMessage", "isEmpty", "isLoading", "isSearching", "rows", "searchQuery", "selectedID", "selectedText"],
        "counter": ["canDecrement", "count"],
    ]

    /// Property `property` of screen `name` as `expect` compares it: `nil`, `true`, `3`,
    /// `loaded`, `2 items`, the text itself; `nil` when the screen has no such property.
    func value(of property: String, on name: String) -> String? {
        func text(_ value: String?) -> String { value ?? "nil" }
        func items(_ count: Int) -> String { "\(count) items" }
        return switch (name, property) {
        case ("login", "username"): login.username
        case ("login", "maskedPassword"): login.maskedPassword
        case ("login", "hasValidCredentials"): String(login.hasValidCredentials)
        case ("login", "isBusy"): String(login.isBusy)
        case ("login", "isAuthenticated"): String(login.isAuthenticated)
        case ("login", "errorMessage"): text(login.errorMessage)
        case ("login", "isSignInEnabled"): String(login.isSignInEnabled)
        case ("login", "credentialsHint"): text(login.credentialsHint)
        case ("session", "isSignedIn"): String(session.isSignedIn)
        case ("session", "username"): text(session.username)
        case ("session", "displayName"): text(session.displayName)
        case ("session", "message"): text(session.message)
        case ("profile", "status"): profile.status.rawValue
        case ("profile", "rows"): items(profile.rows.count)
        case ("profile", "postCount"): String(profile.postCount)
        case ("profile", "canAddPost"): String(profile.canAddPost)
        case ("notes", "rows"): items(notes.rows.count)
        case ("notes", "count"): String(notes.count)
        case ("notes", "selectedID"): text(notes.selectedID?.description)
        case ("notes", "selectedText"): text(notes.selectedText)
        case ("notes", "searchQuery"): notes.searchQuery
        case ("notes", "isSearching"): String(notes.isSearching)
        case ("notes", "isLoading"): String(notes.isLoading)
        case ("notes", "errorMessage"): text(notes.errorMessage)
        case ("notes", "isEmpty"): String(notes.isEmpty)
        case ("notes", "emptyMessage"): text(notes.emptyMessage)
        case ("counter", "count"): String(counter.count)
        case ("counter", "canDecrement"): String(counter.canDecrement)
        default: nil
        }
    }

    // MARK: - Rendering

    /// How much of a long list a screen shows.
    enum Extent {
        /// The first page, and how many more there are.
        case page
        /// Everything.
        case all
        /// What differs from an earlier moment: for the notes, the rows that changed and the
        /// count (the first page when too much changed to tell).
        case changes(since: Screens)
    }

    /// Screen `name`, or every screen for `all`.
    func render(_ name: String, _ extent: Extent = .page) -> String {
        switch name {
        case "all": Self.names.map { render($0, extent) }.joined(separator: "\n")
        case "login": renderLogin()
        case "session": renderSession()
        case "profile": renderProfile()
        case "notes": renderNotes(extent)
        case "counter": renderCounter()
        default: ""
        }
    }

    /// The names of the screens that differ from `earlier`, and what changed on them rendered.
    func changes(since earlier: Screens) -> (names: [String], output: String) {
        let names = changed(since: earlier)
        return (names, names.map { render($0, .changes(since: earlier)) }.joined(separator: "\n"))
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

    private func renderNotes(_ extent: Extent) -> String {
        var header = "notes: \(Self.grouped(notes.count)) note\(notes.count == 1 ? "" : "s")"
        if !notes.searchQuery.isEmpty { header += " matching \(Self.quote(notes.searchQuery))\(notes.isSearching ? " (searching…)" : "")" }
        if notes.isLoading { header += " (loading…)" }
        var lines = [header]
        let rows = notes.rows
        let shown: [NotesViewModel.Row]
        var deleted: [NotesViewModel.Row] = []
        var isPage = false
        switch extent {
        case .all:
            shown = Array(rows)
        case .changes(let earlier):
            if let ids = rows.changedIDs(since: earlier.notes.rows) {
                var positions: [Int] = []
                for id in ids {
                    if let position = rows.index(id: id) {
                        positions.append(position)
                    } else if let row = earlier.notes.rows[id: id] {
                        deleted.append(row)
                    }
                }
                shown = positions.sorted().map { rows[$0] }
            } else {
                shown = Array(rows.prefix(Self.pageSize))
                isPage = true
            }
        case .page:
            shown = Array(rows.prefix(Self.pageSize))
            isPage = true
        }
        let shortIDs = noteIDs.shortIDs(of: (shown + deleted).map(\.id), among: rows.listedNotes)
        for (row, shortID) in zip(shown, shortIDs) {
            var line = "  \(row.isSelected ? "*" : " ") \(shortID)  \(row.title)"
            if !row.preview.isEmpty { line += " — \(row.preview)" }
            line += "  (\(row.updatedAt))"
            if row.isPending { line += " saving…" }
            if row.isUnsaved { line += " NOT SAVED: \(row.unsavedReason ?? "failed") (notes.retry)" }
            lines.append(line)
        }
        for (row, shortID) in zip(deleted, shortIDs.dropFirst(shown.count)) {
            lines.append("  - \(shortID)  \(row.title)  (deleted)")
        }
        if isPage, rows.count > shown.count {
            lines.append("    … and \(Self.grouped(rows.count - shown.count)) more (view notes --all lists every note)")
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

    /// `9980`, `9,980`, `10,000`: digits grouped by thousands, the same in every locale.
    static func grouped(_ number: Int) -> String {
        let digits = String(number.magnitude)
        var grouped = ""
        for (offset, digit) in digits.enumerated() {
            if offset > 0, (digits.count - offset) % 3 == 0 { grouped.append(",") }
            grouped.append(digit)
        }
        return (number < 0 ? "-" : "") + grouped
    }
}
