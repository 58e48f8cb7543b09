import AppHost
import Foundation
import Models
import Reducers
import ViewModels

/// The screens at one moment as the console shows them, with the notes' short ids.
final class ConsoleScreens: Sendable, Equatable {
    /// How many notes a screen lists before it says how many more there are.
    static let pageSize = 20

    let screens: Screens
    let noteIDs: NoteIDs

    // Each read copies the snapshot out of `screens`: a renderer reads its screen once.
    var login: LoginViewModel.Snapshot { screens.login }
    var session: SessionViewModel.Snapshot { screens.session }
    var profile: ProfileViewModel.Snapshot { screens.profile }
    var notes: NotesViewModel.Snapshot { screens.notes }
    var counter: CounterViewModel.Snapshot { screens.counter }

    /// The screens as they are now (read without registering for Observation).
    convenience init(_ console: ConsoleSession) {
        self.init(console.host.screens, noteIDs: console.noteIDs)
    }

    init(_ screens: Screens, noteIDs: NoteIDs) {
        self.screens = screens
        self.noteIDs = noteIDs
    }

    static func == (lhs: ConsoleScreens, rhs: ConsoleScreens) -> Bool {
        lhs === rhs || lhs.screens == rhs.screens
    }

    func changed(since earlier: ConsoleScreens) -> [Screen] {
        screens.changed(since: earlier.screens)
    }

    /// A property `expect` can check: its screen, its name and its value as `expect` compares it.
    struct Property: Sendable {
        let screen: Screen
        let name: String

        func value(_ screens: ConsoleScreens) -> String {
            FieldText.of(name, in: screens.screens.snapshot(of: screen))
        }
    }

    /// Every property `expect` can check, found from the snapshots themselves, by name within a screen.
    static let properties: [Property] = {
        let screens = Screens(AppFeature.State())
        return Screen.allCases.flatMap { screen in
            // (A wrapped property's label is its storage's, `_name`; its coding key is `name`.)
            let labels = Mirror(reflecting: screens.snapshot(of: screen)).children.compactMap(\.label)
            return labels.map { $0.hasPrefix("_") ? String($0.dropFirst()) : $0 }.sorted().map { Property(screen: screen, name: $0) }
        }
    }()

    static let propertiesByPath: [String: Property] = Dictionary(uniqueKeysWithValues: properties.map { ("\($0.screen.rawValue).\($0.name)", $0) })

    /// The names of the properties of `screen`, in the order help lists them.
    static func propertyNames(of screen: Screen) -> [String] {
        properties.filter { $0.screen == screen }.map(\.name)
    }

    // MARK: - Rendering

    enum Extent {
        /// The first page, and how many more there are.
        case page
        case all
        /// What differs from an earlier moment: for the notes, the rows that changed and the count.
        case changes(since: ConsoleScreens)
    }

    /// Every screen, in ``Screen/allCases`` order.
    func renderAll(_ extent: Extent = .page) -> String {
        Screen.allCases.map { render($0, extent) }.joined(separator: "\n")
    }

    func render(_ screen: Screen, _ extent: Extent = .page) -> String {
        switch screen {
        case .login: renderLogin()
        case .session: renderSession()
        case .profile: renderProfile()
        case .notes: renderNotes(extent)
        case .counter: renderCounter()
        }
    }

    func changes(since earlier: ConsoleScreens) -> (screens: [Screen], output: String) {
        let changed = changed(since: earlier)
        return (changed, render(changed, since: earlier))
    }

    func render(_ screens: [Screen], since earlier: ConsoleScreens) -> String {
        // Most commands change one screen: no array of one string to join.
        if screens.count == 1 { return render(screens[0], .changes(since: earlier)) }
        return screens.map { render($0, .changes(since: earlier)) }.joined(separator: "\n")
    }

    private func renderLogin() -> String {
        let login = self.login
        // Appended in place: the login line is rendered after every keystroke a script types.
        var text = "login: username \""
        text.reserveCapacity(128)
        text += login.username
        text += "\", password "
        text += login.maskedPassword.isEmpty ? "(empty)" : login.maskedPassword
        text += login.hasValidCredentials ? "; valid" : "; not valid yet"
        if login.isBusy { text += ", signing in…" }
        if login.isAuthenticated { text += ", signed in" }
        text += login.isSignInEnabled ? ", sign in enabled" : ", sign in disabled"
        if let hint = login.credentialsHint {
            text += "\n  hint: "
            text += hint
        }
        if let error = login.errorMessage {
            text += "\n  error: "
            text += error
            text += " (login.ack to dismiss)"
        }
        return text
    }

    private func renderSession() -> String {
        let session = self.session
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
        let profile = self.profile
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
        let notes = self.notes
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
        if isPage, notes.count > shown.count {
            // The rows held are the pages read so far; the rest are in the store.
            let hint =
                rows.count >= notes.count
                ? "view notes --all lists every note" : "view notes --all lists the \(Self.grouped(rows.count)) read so far; notes.more reads a page more"
            lines.append("    … and \(Self.grouped(notes.count - shown.count)) more (\(hint))")
        }
        if let id = notes.selectedID, let text = notes.selectedText {
            // The open note's whole text: on every view, and after a change that opens or edits it.
            let isNew: Bool =
                switch extent {
                case .page, .all: true
                case .changes(let earlier): earlier.notes.selectedID != id || earlier.notes.selectedText != text
                }
            // A text its row's title shows whole needs no line of its own.
            if isNew, rows[id: id]?.title != text, let shortID = noteIDs.shortIDs(of: [id], among: rows.listedNotes).first {
                lines.append("  open \(shortID): \(Self.oneLine(text))")
            }
        }
        if let empty = notes.emptyMessage { lines.append("  \(empty)") }
        if let error = notes.errorMessage { lines.append("  error: \(error)") }
        return lines.joined(separator: "\n")
    }

    private func renderCounter() -> String {
        let counter = self.counter
        return "counter: \(counter.count)\(counter.canDecrement ? "" : " (cannot go lower)")"
    }

    // MARK: - Helpers

    static func quote(_ text: String) -> String { "\"" + text + "\"" }

    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).joined(separator: " ⏎ ")
    }

    /// `9980`, `9,980`, `10,000`: digits grouped by thousands, the same in every locale.
    static func grouped(_ number: Int) -> String {
        let digits = Array(String(number.magnitude).utf8)
        var grouped: [UInt8] = number < 0 ? [UInt8(ascii: "-")] : []
        grouped.reserveCapacity(digits.count + digits.count / 3 + 1)
        for (offset, digit) in digits.enumerated() {
            if offset > 0, (digits.count - offset) % 3 == 0 { grouped.append(UInt8(ascii: ",")) }
            grouped.append(digit)
        }
        return String(decoding: grouped, as: UTF8.self)
    }
}

extension Screens {
    func snapshot(of screen: Screen) -> any Encodable & Sendable {
        switch screen {
        case .login: login
        case .session: session
        case .profile: profile
        case .notes: notes
        case .counter: counter
        }
    }
}
