import Models
import ViewModels

/// What a reader that holds some screens needs to hold newer ones.
public struct ScreensUpdate: Codable, Equatable, Sendable {
    /// The screens that changed, in `Screen/allCases` order; only these are present below.
    public var changed: [Screen]
    /// The sign-in screen, when it changed.
    public var login: LoginViewModel.Snapshot?
    /// Who is signed in, when it changed.
    public var session: SessionViewModel.Snapshot?
    /// The profile and posts, when they changed.
    public var profile: ProfileViewModel.Snapshot?
    /// The notes screen, when it changed, with the rows that changed among the page a reader holds.
    public var notes: NotesUpdate?
    /// The counter, when it changed.
    public var counter: CounterViewModel.Snapshot?

    /// What changed from `earlier` (what the reader holds) to `screens`; `nil` `earlier`.
    public init(_ screens: Screens, since earlier: Screens?) {
        changed = earlier.map { screens.changed(since: $0) } ?? Screen.allCases
        let changed = Set(changed)
        login = changed.contains(.login) ? screens.login : nil
        session = changed.contains(.session) ? screens.session : nil
        profile = changed.contains(.profile) ? screens.profile : nil
        notes = changed.contains(.notes) ? NotesUpdate(screens.notes, since: earlier?.notes) : nil
        counter = changed.contains(.counter) ? screens.counter : nil
    }
}

/// The notes screen's snapshot without its rows, and the rows that changed among the first
/// `rowLimit`.
public struct NotesUpdate: Codable, Equatable, Sendable {
    /// Rows as the reader should change its list.
    public enum Rows: Codable, Equatable, Sendable {
        /// Every row: the list was loaded anew, sorted, or a search changed what is shown.
        case all(rows: [NotesViewModel.Row])
        /// The rows inserted or changed, each at its position in the new list (ascending), and
        /// the ids of those gone.
        case changes(upserted: [PositionedRow], removed: [Note.ID])
    }

    /// A row and its position in the list.
    public struct PositionedRow: Codable, Equatable, Sendable {
        /// The position, from 0.
        public var at: Int
        /// The row.
        public var row: NotesViewModel.Row
    }

    /// How many rows are listed.
    public var count: Int
    /// The open note's id; `nil` when none.
    public var selectedID: Note.ID?
    /// The open note's full text; `nil` when none.
    public var selectedText: String?
    /// The search typed; empty when not searching.
    public var searchQuery: String
    /// Whether a search is waiting or in flight.
    public var isSearching: Bool
    /// Whether the list is loading.
    public var isLoading: Bool
    /// The error to show; `nil` when none.
    public var errorMessage: String?
    /// Whether there are no rows to list.
    public var isEmpty: Bool
    /// What to say instead of an empty list; `nil` when there are rows.
    public var emptyMessage: String?
    /// How many of the first rows a reader holds.
    public var rowLimit: Int
    /// The rows that changed among the first `rowLimit`.
    public var rows: Rows

    /// What changed from `earlier` to `snapshot` among the first rows a reader holds, found through
    /// the list's change log; the page whole when that cannot be told.
    public init(_ snapshot: NotesViewModel.Snapshot, since earlier: NotesViewModel.Snapshot?) {
        count = snapshot.count
        selectedID = snapshot.selectedID
        selectedText = snapshot.selectedText
        searchQuery = snapshot.searchQuery
        isSearching = snapshot.isSearching
        isLoading = snapshot.isLoading
        errorMessage = snapshot.errorMessage
        isEmpty = snapshot.isEmpty
        emptyMessage = snapshot.emptyMessage
        rowLimit = snapshot.rowLimit
        let rowsNow = snapshot.rows
        let page = min(snapshot.rowLimit, rowsNow.count)
        guard let earlier else {
            rows = .all(rows: Array(rowsNow.prefix(page)))
            return
        }
        let earlierPage = min(earlier.rowLimit, earlier.rows.count)
        // Told by the list's change log; past its reach (a page read at once), by comparing the
        // two pages, which costs a page (never the notes).
        guard let ids = rowsNow.changedIDs(since: earlier.rows) ?? Self.differing(rowsNow, page: page, earlier.rows, page: earlierPage) else {
            rows = .all(rows: Array(rowsNow.prefix(page)))
            return
        }
        rows = Self.changes(of: rowsNow, page: page, since: earlier.rows, page: earlierPage, changed: ids)
    }

    /// The ids of the rows of either page that the other does not show alike at the same place.
    private static func differing(
        _ rows: NotesViewModel.Rows, page: Int, _ earlier: NotesViewModel.Rows, page earlierPage: Int
    ) -> [Note.ID]? {
        var ids: [Note.ID] = []
        for position in 0..<page {
            let row = rows[position]
            if position < earlierPage, earlier[position] == row { continue }
            ids.append(row.id)
        }
        for position in 0..<earlierPage where rows.index(id: earlier.id(at: position)).map({ $0 >= page }) ?? true {
            ids.append(earlier.id(at: position))
        }
        return ids
    }

    /// The rows to change in a reader's page: each changed note's row, and the unchanged rows a
    /// change above pushed out of the page or pulled into it.
    private static func changes(
        of rows: NotesViewModel.Rows, page: Int, since earlier: NotesViewModel.Rows, page earlierPage: Int, changed ids: [Note.ID]
    ) -> Rows {
        let changed = Set(ids)
        var upserted: [PositionedRow] = []
        var removed: [Note.ID] = []
        var changedInPage = 0
        var changedInEarlierPage = 0
        for id in ids {
            let position = rows.index(id: id).flatMap { $0 < page ? $0 : nil }
            if let position {
                upserted.append(PositionedRow(at: position, row: rows[position]))
                changedInPage += 1
            }
            if let earlierPosition = earlier.index(id: id), earlierPosition < earlierPage {
                changedInEarlierPage += 1
                if position == nil { removed.append(id) }
            }
        }
        var kept = earlierPage - changedInEarlierPage
        let keptNow = page - changedInPage
        var position = earlierPage - 1
        while kept > keptNow, position >= 0 {
            let id = earlier.id(at: position)
            if !changed.contains(id) {
                removed.append(id)
                kept -= 1
            }
            position -= 1
        }
        position = page - 1
        while kept < keptNow, position >= 0 {
            let id = rows.id(at: position)
            if !changed.contains(id) {
                upserted.append(PositionedRow(at: position, row: rows[position]))
                kept += 1
            }
            position -= 1
        }
        upserted.sort { $0.at < $1.at }
        return .changes(upserted: upserted, removed: removed.sorted())
    }

    /// `rows` with this update applied (what a reader holding `rows` does with it).
    public func applied(to rows: [NotesViewModel.Row]) -> [NotesViewModel.Row] {
        switch self.rows {
        case .all(let all):
            return all
        case .changes(let upserted, let removed):
            let leaving = Set(removed).union(upserted.map(\.row.id))
            var result = rows.filter { !leaving.contains($0.id) }
            for change in upserted { result.insert(change.row, at: min(change.at, result.count)) }
            return result
        }
    }
}

extension IntentOutcome {
    /// The outcome as an update of the screens `earlier` a reader holds.
    public struct Update: Codable, Equatable, Sendable {
        /// How the intent ended.
        public var status: Status
        /// What changed from the reader's screens.
        public var screens: ScreensUpdate
    }

    /// This outcome for a reader holding `earlier` (`nil`: nothing yet).
    public func update(since earlier: Screens?) -> Update {
        Update(status: status, screens: ScreensUpdate(screens, since: earlier))
    }
}
