import AppEnvironment
import Foundation
import Persistence
import Reducers
import StateStore

/// A host's storage, opened: the clients the app runs on, and on a database the file, the
/// journal this process records, and the state the journal left the app in.
struct OpenedStorage: Sendable {
    typealias AppJournal = Journal<AppFeature.State, AppFeature.Action>

    let environment: AppEnvironment
    let database: Database?
    /// The journal this process records; `nil` in memory, when only looking, or without one.
    let journal: AppJournal?
    let initialState: AppFeature.State
    let replayed: Int

    static func open(
        _ storage: AppHost.Storage, requestedStyle: LoginStyle?, options: AppHost.Options, failures: FailureInjector
    ) throws(AppHostError) -> OpenedStorage {
        let clock: any Clock<Duration> = options.testClock ?? ContinuousClock()
        let injecting = { (environment: AppEnvironment) in options.injectsFailures ? environment.injectingFailures(failures) : environment }
        var initialState = options.initialState ?? AppFeature.State(loginStyle: requestedStyle ?? .finiteStates)
        switch storage {
        case .inMemory(let latency):
            let base =
                options.clients
                ?? (options.testClock == nil ? AppEnvironment.inMemory(clock: clock, start: Date()) : AppEnvironment.inMemory(clock: clock))
            let environment = injecting(latency > .zero ? base.withLatency(latency) : base)
            return OpenedStorage(environment: environment, database: nil, journal: nil, initialState: initialState, replayed: 0)
        case .database(let path):
            do {
                let database = try AppSchema.open(path, readOnly: options.readOnly, durability: options.durability)
                if let preparingDatabase = options.preparingDatabase { try database.read(preparingDatabase) }
                let environment = injecting(AppEnvironment.live(database: database, configuration: options.live, clock: clock, warnings: options.warnings))
                // While the stream starts, a write refused as busy is retried, not reported.
                let starting = Locked(true)
                let reporting = reportingJournal(to: options.warnings)
                let report: @Sendable (AppJournal.Event) -> Void = { event in
                    switch event {
                    case .writeFailed, .writeRecovered: if !starting.withLock({ $0 }) { reporting(event) }
                    case .damaged: reporting(event)
                    }
                }
                var replayed = 0
                if options.journal != .off {
                    let restored = try AppJournal.restoreLatest(in: database, from: initialState, using: AppFeature(environment: environment), report: report)
                    // A journal of a fresh app says nothing about the login style; the caller's stands.
                    if restored.replayed > 0 || restored.state != AppFeature.State() {
                        initialState = restored.state
                        let journalStyle = restored.state.loginStyle
                        if let requestedStyle, requestedStyle != journalStyle {
                            options.warnings("the journal's sign-in ran the \(journalStyle) login style; it runs \(requestedStyle) now, as asked")
                            initialState.loginStyle = requestedStyle
                        }
                    }
                    replayed = restored.replayed
                }
                // Only looking (or no journal): nothing is recorded, and no stream is touched.
                let journal =
                    options.journal == .restoreAndRecord && !options.readOnly
                    ? try startOwnStream(in: database, from: initialState, report: report) : nil
                starting.withLock { $0 = false }
                return OpenedStorage(environment: environment, database: database, journal: journal, initialState: initialState, replayed: replayed)
            } catch {
                throw AppHostError(error)
            }
        }
    }

    /// How many busy timeouts starting the journal's stream waits through: fifty processes starting
    /// while others write can hold the write lock past one.
    static let busyTimeoutsToStart = 3

    /// This process's journal stream, started once the write lock is free (see
    /// ``busyTimeoutsToStart``); a stream that could not start wrote nothing.
    private static func startOwnStream(
        in database: Database, from state: AppFeature.State, report: @escaping @Sendable (AppJournal.Event) -> Void
    ) throws(DatabaseError) -> AppJournal {
        var attempts = 1
        while true {
            do {
                return try AppJournal.startOwnStream(in: database, from: state, report: report)
            } catch  where error.kind == .busy && attempts < busyTimeoutsToStart {
                attempts += 1
            }
        }
    }

    /// The journal's events as lines for `warnings`.
    private static func reportingJournal(to warnings: @escaping @Sendable (String) -> Void) -> @Sendable (AppJournal.Event) -> Void {
        { event in
            switch event {
            case .writeFailed(let error, let unwritten):
                warnings(
                    "the journal cannot be written (\(error)); \(unwritten) action\(unwritten == 1 ? " waits" : "s wait") in memory and writing is retried, but quitting now would lose what it holds"
                )
            case .writeRecovered:
                warnings("the journal is written again; nothing waiting was lost")
            case .damaged(let what):
                warnings("the journal is damaged: \(what)")
            }
        }
    }

    /// Writes the rest of the journal, compacted to `finalState` (what the app ended in: a
    /// deleted note's text leaves the journal too), and closes the database.
    func close(finalState: AppFeature.State, within timeout: Duration) async throws(AppHostError) {
        guard let database else { return }
        let journal = journal
        let closed = await Self.onOwnThread(atMost: timeout) { () -> Result<Void, AppHostError> in
            defer { database.close() }
            do throws(DatabaseError) {
                try journal?.close(finalState: finalState)
                return .success(())
            } catch {
                let unwritten = journal?.unwrittenCount ?? 0
                guard unwritten > 0 else { return .failure(AppHostError(error)) }
                return .failure(
                    AppHostError(
                        "the last \(unwritten) action\(unwritten == 1 ? "" : "s") could not be written to the journal, so a restart will not resume after \(unwritten == 1 ? "it" : "them"): \(error)"
                    ))
            }
        }
        guard let closed else {
            let unwritten = journal?.unwrittenCount ?? 0
            throw AppHostError(
                "the database did not answer within \(Self.seconds(timeout)) s (a call to it is stuck), so it was left open"
                    + (unwritten > 0 ? ": the last \(unwritten) action\(unwritten == 1 ? "" : "s") may not be kept" : ""))
        }
        try closed.get()
    }

    private static func seconds(_ duration: Duration) -> String {
        let tenths = (duration.components.seconds * 10) + duration.components.attoseconds / 100_000_000_000_000_000
        return "\(tenths / 10).\(tenths % 10)"
    }

    /// `work`'s result, on a thread of its own; `nil` when it has not ended within `timeout`.
    private static func onOwnThread<T: Sendable>(atMost timeout: Duration, _ work: @escaping @Sendable () -> T) async -> T? {
        await withCheckedContinuation { continuation in
            let answered = Locked(false)
            let answer = { @Sendable (value: T?) in
                let first = answered.withLock { answered in
                    defer { answered = true }
                    return !answered
                }
                if first { continuation.resume(returning: value) }
            }
            Thread { answer(work()) }.start()
            let nanoseconds = timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000
            DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: nanoseconds))) { answer(nil) }
        }
    }
}
