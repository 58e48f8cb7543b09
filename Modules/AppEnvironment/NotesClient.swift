import Models

/// The signed-in user's notes.
public struct NotesClient: Sendable {
    /// All the user's notes, most recently updated first.
    public var list: @Sendable (_ token: AccessToken) async throws(AppError) -> [Note]
    /// Stores a new note under the id the app chose.
    public var create: @Sendable (_ token: AccessToken, _ note: Note) async throws(AppError) -> Note
    /// Replaces a note's text and update time, and returns it as stored (its new `version`).
    public var update: @Sendable (_ token: AccessToken, _ note: Note) async throws(AppError) -> Note
    /// Deletes a note, based on `note.version` as ``update`` is.
    public var delete: @Sendable (_ token: AccessToken, _ note: Note) async throws(AppError) -> Void
    /// The notes whose text contains every word of `query`, most recently updated first.
    public var search: @Sendable (_ token: AccessToken, _ query: String) async throws(AppError) -> [Note]
    /// Reads a page of the notes as ``page(_:_:after:limit:)`` describes it, at the cost of the
    /// page and a count.
    public var pages: PageEndpoint?

    /// The shape of ``pages``.
    public typealias PageEndpoint =
        @Sendable (_ token: AccessToken, _ query: String, _ after: NotesPosition?, _ limit: Int) async throws(AppError) -> NotePage
    /// What changed in the user's notes since `cursor`, whoever changed them; with `nil`, nothing,
    /// and the cursor of now (ask before listing, so nothing written between is missed).
    public var changes: @Sendable (_ token: AccessToken, _ since: NotesCursor?) async throws(AppError) -> NoteChanges
    /// Wakes whoever iterates it each time the stored notes may have been changed by another
    /// writer (another process on the same database); never ends by itself.
    public var externalWrites: @Sendable () -> AsyncStream<Void>

    /// Creates a client from its endpoints.
    public init(
        list: @escaping @Sendable (_ token: AccessToken) async throws(AppError) -> [Note],
        create: @escaping @Sendable (_ token: AccessToken, _ note: Note) async throws(AppError) -> Note,
        update: @escaping @Sendable (_ token: AccessToken, _ note: Note) async throws(AppError) -> Note,
        delete: @escaping @Sendable (_ token: AccessToken, _ note: Note) async throws(AppError) -> Void,
        search: @escaping @Sendable (_ token: AccessToken, _ query: String) async throws(AppError) -> [Note],
        changes: @escaping @Sendable (_ token: AccessToken, _ since: NotesCursor?) async throws(AppError) -> NoteChanges = { _, since in
            NoteChanges(cursor: since ?? NotesCursor(position: 0))
        },
        externalWrites: @escaping @Sendable () -> AsyncStream<Void> = { AsyncStream { _ in } },
        page: PageEndpoint? = nil
    ) {
        self.list = list
        self.create = create
        self.update = update
        self.delete = delete
        self.search = search
        self.changes = changes
        self.externalWrites = externalWrites
        // Without a page endpoint of its own, a page is cut from the whole list or search.
        pages = page
    }

    /// A page of the user's notes, or of those matching `query`, in list order after `after`, and
    /// how many there are in all.
    public func page(_ token: AccessToken, _ query: String, after: NotesPosition?, limit: Int) async throws(AppError) -> NotePage {
        if let pages { return try await pages(token, query, after, limit) }
        let all: [Note]
        if query.allSatisfy(\.isWhitespace) {
            all = try await list(token)
        } else {
            all = try await search(token, query)
        }
        return NotePage(of: all, after: after, limit: limit)
    }

    /// A client whose every endpoint reports the call as unexpected and fails.
    public static func failing(_ reporter: UnexpectedCallReporter = .standardError) -> NotesClient {
        NotesClient(
            list: { _ throws(AppError) in throw unexpected(.notesList, reporter) },
            create: { _, _ throws(AppError) in throw unexpected(.notesCreate, reporter) },
            update: { _, _ throws(AppError) in throw unexpected(.notesUpdate, reporter) },
            delete: { _, _ throws(AppError) in throw unexpected(.notesDelete, reporter) },
            search: { _, _ throws(AppError) in throw unexpected(.notesSearch, reporter) },
            changes: { _, _ throws(AppError) in throw unexpected(.notesChanges, reporter) }
        )
    }

    /// A client that stores nothing.
    public static let noop = NotesClient(
        list: { _ in [] },
        create: { _, note in note },
        update: { _, note in note },
        delete: { _, _ in },
        search: { _, _ in [] }
    )

    /// `pages` with `hook` run before each call (as a list's or a search's).
    private func intercepting(_ pages: @escaping PageEndpoint, _ hook: @escaping EndpointHook) -> PageEndpoint {
        { token, query, after, limit throws(AppError) in
            try await hook(query.allSatisfy(\.isWhitespace) ? .notesList : .notesSearch)
            return try await pages(token, query, after, limit)
        }
    }

    /// This client with `hook` run before each call.
    public func intercepting(_ hook: @escaping EndpointHook) -> NotesClient {
        let base = self
        return NotesClient(
            list: { token throws(AppError) in
                try await hook(.notesList)
                return try await base.list(token)
            },
            create: { token, note throws(AppError) in
                try await hook(.notesCreate)
                return try await base.create(token, note)
            },
            update: { token, note throws(AppError) in
                try await hook(.notesUpdate)
                return try await base.update(token, note)
            },
            delete: { token, note throws(AppError) in
                try await hook(.notesDelete)
                try await base.delete(token, note)
            },
            search: { token, query throws(AppError) in
                try await hook(.notesSearch)
                return try await base.search(token, query)
            },
            changes: { token, since throws(AppError) in
                try await hook(.notesChanges)
                return try await base.changes(token, since)
            },
            externalWrites: base.externalWrites,
            page: base.pages.map { pages in intercepting(pages, hook) }
        )
    }
}
