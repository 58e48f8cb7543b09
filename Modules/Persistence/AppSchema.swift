import Models

/// AppCore's database schema, one ``Migration`` per version.
public enum AppSchema {
    /// AppCore's mark in every database it owns (`PRAGMA application_id`): "ApCo".
    public static let applicationID: Int32 = 0x4170_436F

    /// Opens AppCore's database at `path`, migrated to this version.
    public static func open(_ path: String, readOnly: Bool = false, durability: Durability = .processCrash) throws(DatabaseError) -> Database {
        readOnly
            ? try Database(readingOnly: path, migrations: migrations, applicationID: applicationID)
            : try Database(path: path, migrations: migrations, durability: durability, applicationID: applicationID)
    }

    /// The notes of `database` as a document names them by reference (an action journal's
    /// records and snapshots do): read back as stored now, `nil` once deleted.
    public static func storedNotes(in database: Database) -> StoredNotes {
        StoredNotes { id, version in
            let notes = try? database.read { db throws(DatabaseError) -> [Note] in
                guard try db.tableExists("note_counts") else { return [] }
                return try db.query(
                    LiveBackend.noteColumns + " WHERE owner_id IN (SELECT owner_id FROM note_counts WHERE count > 0) AND id = ?",
                    [.text(id.description)], NotesTable.note
                ).compactMap { $0 }
            }
            return notes?.first { $0.version == version } ?? notes?.first
        }
    }

    /// Every step, oldest first.
    public static let migrations: [Migration] = [
        Migration(
            version: 1, name: "accounts, sessions, posts, notes, journal",
            sql: """
                CREATE TABLE accounts (
                    id TEXT PRIMARY KEY,
                    username TEXT NOT NULL,
                    username_key TEXT NOT NULL UNIQUE,
                    display_name TEXT NOT NULL,
                    bio TEXT NOT NULL DEFAULT '',
                    password_hash BLOB NOT NULL,
                    salt BLOB NOT NULL,
                    iterations INTEGER NOT NULL,
                    failed_attempts INTEGER NOT NULL DEFAULT 0,
                    created_at REAL NOT NULL
                );
                CREATE TABLE sessions (
                    token_hash BLOB PRIMARY KEY,
                    user_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                    expires_at REAL NOT NULL
                );
                CREATE TABLE posts (
                    id TEXT PRIMARY KEY,
                    author_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                    text TEXT NOT NULL,
                    created_at REAL NOT NULL,
                    sequence INTEGER NOT NULL
                );
                CREATE INDEX posts_by_author ON posts(author_id, sequence);
                CREATE TABLE notes (
                    id TEXT PRIMARY KEY,
                    owner_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                    text TEXT NOT NULL,
                    created_at REAL NOT NULL,
                    updated_at REAL NOT NULL
                );
                CREATE INDEX notes_by_owner ON notes(owner_id, updated_at);
                CREATE TABLE journal (
                    stream TEXT NOT NULL,
                    first_sequence INTEGER NOT NULL,
                    count INTEGER NOT NULL,
                    actions BLOB NOT NULL,
                    PRIMARY KEY (stream, first_sequence)
                );
                CREATE TABLE snapshots (
                    stream TEXT NOT NULL,
                    sequence INTEGER NOT NULL,
                    state BLOB NOT NULL,
                    PRIMARY KEY (stream, sequence)
                );
                """),
        Migration(version: 2, name: "full-text search of notes") { db throws(DatabaseError) in
            // A note written since the last search has search_indexed = 0 (set in the same row, so
            // writing a note touches no extra page); the index catches up in one transaction when
            // someone searches. Rows of deleted notes left in the index match no note any more.
            try db.execute("ALTER TABLE notes ADD COLUMN search_indexed INTEGER NOT NULL DEFAULT 0")
            // FTS5 with the trigram tokenizer finds any substring of three characters or more,
            // as the in-memory search does; without FTS5, search falls back to escaped LIKE.
            guard db.hasCompileOption("ENABLE_FTS5") else { return }
            try db.execute("CREATE VIRTUAL TABLE notes_search USING fts5(text, tokenize='trigram')")
        },
        Migration(
            version: 3, name: "a journal stream per process",
            sql: """
                CREATE TABLE journal_streams (
                    stream TEXT PRIMARY KEY,
                    last_active INTEGER NOT NULL,
                    closed INTEGER NOT NULL DEFAULT 0
                );
                INSERT INTO journal_streams (stream, last_active, closed)
                    SELECT stream, 0, 1 FROM journal UNION SELECT stream, 0, 1 FROM snapshots;
                """),
        Migration(version: 4, name: "notes stored by owner") { db throws(DatabaseError) in
            // One b-tree keyed by (owner, id) instead of a rowid table, its id index and an owner
            // index: writing a note touches one page where it touched three, and a user's notes
            // are read as one range. Note ids are scoped to their owner, so one account can no
            // longer learn from an error that an id exists in another. The full-text index is
            // keyed by `search_rowid` (a number given when the note is first indexed) and is
            // rebuilt at the next search.
            try db.executeScript(
                """
                CREATE TABLE notes_by_owner_and_id (
                    owner_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                    id TEXT NOT NULL,
                    text TEXT NOT NULL,
                    created_at REAL NOT NULL,
                    updated_at REAL NOT NULL,
                    search_indexed INTEGER NOT NULL DEFAULT 0,
                    search_rowid INTEGER,
                    PRIMARY KEY (owner_id, id)
                ) WITHOUT ROWID;
                INSERT INTO notes_by_owner_and_id (owner_id, id, text, created_at, updated_at)
                    SELECT owner_id, id, text, created_at, updated_at FROM notes;
                DROP TABLE notes;
                ALTER TABLE notes_by_owner_and_id RENAME TO notes;
                """)
            if try db.tableExists("notes_search") { try db.execute("DELETE FROM notes_search") }
        },
        Migration(
            version: 5, name: "journal streams know their process",
            sql: """
                ALTER TABLE journal_streams ADD COLUMN owner_pid INTEGER;
                ALTER TABLE journal_streams ADD COLUMN owner_started INTEGER;
                """),
        Migration(version: 6, name: "search index of folded text") { db throws(DatabaseError) in
            // The index now holds each note's folded text (`SearchText`), so a search matches on a
            // database as in memory; it is built again, in small batches, after the migration.
            guard try db.tableExists("notes_search") else { return }
            try db.execute("DELETE FROM notes_search")
            try db.execute("UPDATE notes SET search_indexed = 0, search_rowid = NULL")
        },
        Migration(
            version: 7, name: "numbered note changes",
            sql: """
                -- Each write of an owner's notes takes the next number of that owner's changes (one
                -- more than the highest in either table), so a reader asks for the rows changed after
                -- the last number it saw and reads those only. Deleted notes leave a row here.
                ALTER TABLE notes ADD COLUMN change_sequence INTEGER NOT NULL DEFAULT 0;
                CREATE INDEX notes_by_change ON notes(owner_id, change_sequence);
                CREATE TABLE note_removals (
                    owner_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                    id TEXT NOT NULL,
                    change_sequence INTEGER NOT NULL,
                    PRIMARY KEY (owner_id, id)
                ) WITHOUT ROWID;
                CREATE INDEX note_removals_by_change ON note_removals(owner_id, change_sequence);
                """),
        Migration(
            version: 8, name: "sign-in throttling by username, expiring sessions",
            sql: """
                -- Failed sign-ins are counted by the username tried, whether an account has it or
                -- not, so the throttle tells nobody which usernames exist. A row is dropped on
                -- success and once its last failure is older than LiveConfiguration.failureMemory.
                CREATE TABLE sign_in_failures (
                    username_key TEXT PRIMARY KEY,
                    failures INTEGER NOT NULL,
                    last_failed_at REAL NOT NULL
                ) WITHOUT ROWID;
                CREATE INDEX sign_in_failures_by_time ON sign_in_failures(last_failed_at);
                INSERT INTO sign_in_failures (username_key, failures, last_failed_at)
                    SELECT username_key, failed_attempts, (julianday('now') - 2451910.5) * 86400 FROM accounts WHERE failed_attempts > 0;
                UPDATE accounts SET failed_attempts = 0;
                -- Expired sessions are deleted as sessions open.
                CREATE INDEX sessions_by_expiry ON sessions(expires_at);
                """),
        Migration(
            version: 9, name: "search reads only the notes it needs",
            sql: """
                -- The notes not indexed yet (a few at most, while writes go on) and the notes by their
                -- index row: a search and an indexing batch read those, not every note of the owner.
                CREATE INDEX notes_unindexed ON notes(owner_id, id) WHERE search_indexed = 0;
                CREATE INDEX notes_by_search_row ON notes(search_rowid, owner_id) WHERE search_rowid IS NOT NULL;
                """),
        Migration(
            version: 10, name: "journal batches keyed by stream and sequence",
            sql: """
                -- One b-tree keyed by (stream, first sequence) instead of a rowid table and its key's
                -- index: a commit of a few actions writes one page where it wrote two.
                CREATE TABLE journal_by_sequence (
                    stream TEXT NOT NULL,
                    first_sequence INTEGER NOT NULL,
                    count INTEGER NOT NULL,
                    actions BLOB NOT NULL,
                    PRIMARY KEY (stream, first_sequence)
                ) WITHOUT ROWID;
                INSERT INTO journal_by_sequence SELECT stream, first_sequence, count, actions FROM journal;
                DROP TABLE journal;
                ALTER TABLE journal_by_sequence RENAME TO journal;
                """),
        Migration(
            version: 11, name: "the search index's progress by change number",
            sql: """
                -- How far each owner's notes are indexed: every note whose change number is at most
                -- indexed_through has its text in notes_search, and the notes after it are read through
                -- notes_by_change. A write no longer marks its row (search_indexed) nor touches the
                -- index of marked rows: two pages per note written where there were three.
                CREATE TABLE search_progress (
                    owner_id TEXT PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
                    indexed_through INTEGER NOT NULL
                ) WITHOUT ROWID;
                INSERT INTO search_progress (owner_id, indexed_through)
                    SELECT owner_id, coalesce(min(CASE WHEN search_indexed = 0 THEN change_sequence END) - 1, max(change_sequence))
                    FROM notes GROUP BY owner_id;
                DROP INDEX notes_unindexed;
                ALTER TABLE notes DROP COLUMN search_indexed;
                """),
        Migration(version: 12, name: "the search index merges in bounded steps") { db throws(DatabaseError) in
            // FTS5 merges its segments inside the write that finds enough of them, which at tens of
            // thousands of notes held the write lock for tens of milliseconds; the index merges in
            // steps of its own instead (`SearchIndex.mergeSegments()`).
            guard try db.tableExists("notes_search") else { return }
            try db.execute("INSERT INTO notes_search (notes_search, rank) VALUES ('automerge', 0)")
        },
        Migration(
            version: 13, name: "sign-ins spaced across processes",
            sql: """
                -- The earliest time the username's next sign in is checked: an attempt is counted
                -- (as failed, until it succeeds) and the next one spaced when it is let in, so
                -- attempts made at once by several processes are spaced too.
                ALTER TABLE sign_in_failures ADD COLUMN next_attempt_at REAL NOT NULL DEFAULT 0;
                """),
        Migration(version: 14, name: "usernames compared composed, case folded and narrowed") { db throws(DatabaseError) in
            // `Username.normalized` was the lowercased text: keys are made again, oldest account
            // first. Of two accounts one name now names (typed composed and decomposed), the
            // older keeps it; the younger's key becomes one no username gives.
            let accounts = try db.query("SELECT id, username, username_key FROM accounts ORDER BY created_at, id") { ($0.text(0), $0.text(1), $0.text(2)) }
            var claimed: Set<String> = []
            var changes: [(id: String, key: String)] = []
            for (id, username, key) in accounts {
                let normalized = Username(username).normalized
                let final = claimed.contains(normalized) ? "\(normalized)\u{0}\(id)" : normalized
                claimed.insert(final)
                // By bytes: Swift's `==` holds composed and decomposed text equal.
                if !final.utf8.elementsEqual(key.utf8) { changes.append((id, final)) }
            }
            // Each changed key is set aside first, so no new key meets an old one still held.
            for change in changes {
                try db.execute("UPDATE accounts SET username_key = ? WHERE id = ?", [.text("\u{0}" + change.id), .text(change.id)])
            }
            for change in changes {
                try db.execute("UPDATE accounts SET username_key = ? WHERE id = ?", [.text(change.key), .text(change.id)])
            }
            try db.execute("DELETE FROM sign_in_failures")
        },
        Migration(version: 15, name: "notes holding a NUL indexed whole") { db throws(DatabaseError) in
            // The index read a note's folded text only up to a NUL; folded text has none now.
            guard try db.tableExists("notes_search") else { return }
            let rows = try db.query("SELECT search_rowid, text FROM notes WHERE search_rowid IS NOT NULL AND instr(text, char(0)) > 0") {
                ($0.int(0), $0.text(1))
            }
            for (row, text) in rows {
                try SearchIndex.remove(row: row, in: db)
                try db.execute("INSERT INTO notes_search (rowid, text) VALUES (?, ?)", [.int(row), .text(SearchText.folded(text))])
            }
        },
        Migration(
            version: 16, name: "notes read a page at a time in the list's order",
            sql: """
                -- A page of the list, and of a search's many matches, is read from here in order,
                -- the index's row and the note's change told without reading the note.
                CREATE INDEX notes_in_list_order ON notes(owner_id, updated_at, id, search_rowid, change_sequence);
                """),
        Migration(
            version: 17, name: "each owner's notes counted as they come and go",
            sql: """
                -- How many notes each owner has, kept by the writes themselves: a page's count costs
                -- one row, however many notes there are.
                CREATE TABLE note_counts (owner_id TEXT PRIMARY KEY, count INTEGER NOT NULL) WITHOUT ROWID;
                INSERT INTO note_counts (owner_id, count)
                    SELECT accounts.id, (SELECT count(*) FROM notes WHERE notes.owner_id = accounts.id) FROM accounts;
                -- Every account has its row from the start, so a note's write updates one.
                CREATE TRIGGER accounts_counted AFTER INSERT ON accounts BEGIN
                    INSERT OR IGNORE INTO note_counts (owner_id, count) VALUES (NEW.id, 0);
                END;
                CREATE TRIGGER notes_counted_in AFTER INSERT ON notes BEGIN
                    UPDATE note_counts SET count = count + 1 WHERE owner_id = NEW.owner_id;
                END;
                CREATE TRIGGER notes_counted_out AFTER DELETE ON notes BEGIN
                    UPDATE note_counts SET count = count - 1 WHERE owner_id = OLD.owner_id;
                END;
                """),
    ]
}
