import Models

/// The rule every notes store follows to tell a conflict from a writer's own quick changes.
package struct NoteVersions: Sendable {
    /// One note's run of this writer's own writes.
    private struct Run: Sendable {
        /// The version this writer stored last.
        var latest: Int64
        /// The versions its run of writes replaced, newest last (as many as can be in flight).
        var replaced: [Int64]
    }

    private var runs: [Note.ID: Run] = [:]
    private static let remembered = 32

    package init() {}

    /// How many notes this record remembers a run of writes of: the notes rewritten, not every
    /// note written, so it does not grow with the notes created.
    package var rememberedNotes: Int { runs.count }

    /// Whether a change of `id` based on `base` may replace what is stored at `stored`.
    package func allows(_ id: Note.ID, base: Int64?, stored: Int64?) -> Bool {
        guard let base, base != stored else { return true }
        guard let stored, let run = runs[id], run.latest == stored else { return false }
        return run.replaced.contains(base)
    }

    /// Records that this writer replaced version `stored` of `id` with `wrote` (`nil`: deleted).
    package mutating func record(_ id: Note.ID, replaced stored: Int64?, wrote: Int64?) {
        // A write that replaced nothing (a new note) starts no run: a run of no replaced versions
        // allows nothing more than none, so only notes rewritten are remembered, not every note.
        guard let wrote, let stored else {
            runs[id] = nil
            return
        }
        var run = runs[id].flatMap { $0.latest == stored ? $0 : nil } ?? Run(latest: wrote, replaced: [])
        run.replaced.append(stored)
        if run.replaced.count > Self.remembered { run.replaced.removeFirst(run.replaced.count - Self.remembered) }
        run.latest = wrote
        runs[id] = run
    }

    /// The conflict a refused change of `id` meets: the version stored now, or its deletion.
    package static func conflict(_ id: Note.ID, stored: Note?) -> AppError {
        .conflict(stored.map { .changed($0) } ?? .deleted(id))
    }
}
