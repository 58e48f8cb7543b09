import StateStore
import Testing

/// A store for tests that makes you assert everything a feature does.
public final class TestStore<State: Equatable & Sendable, Action: Equatable & Sendable> {
    /// How much a test must assert.
    public enum Exhaustivity: Sendable, Equatable {
        /// Every change, received action, diagnostic and running effect must be accounted for.
        case on
        /// Only what the test asserts is checked.
        case off
    }

    /// How much the test must assert; can be changed between steps.
    public var exhaustivity: Exhaustivity
    /// How long (in real time) `receive`, `expectDiagnostic` and `finish` wait for effects.
    public var timeout: Duration

    private let store: RootStore<State, Action>
    private let recorder: Recorder<State, Action>
    private let reporter: FailureReporter
    private let createdAt: SourceLocation
    private let recording: StoreSubscription
    private var hasFinished = false

    /// Creates a test store running `reducer` from `initialState`.
    public init<R: Reducer>(
        initialState: State,
        reducer: R,
        exhaustivity: Exhaustivity = .on,
        timeout: Duration = .seconds(2),
        reporter: FailureReporter = .swiftTesting,
        sourceLocation: SourceLocation = #_sourceLocation,
        @MiddlewareBuilder<State, Action> middleware: () -> MiddlewarePipeline<State, Action> = { MiddlewarePipeline() }
    ) where R.State == State, R.Action == Action {
        let recorder = Recorder<State, Action>(initialState: initialState)
        self.recorder = recorder
        self.exhaustivity = exhaustivity
        self.timeout = timeout
        self.reporter = reporter
        createdAt = sourceLocation
        store = RootStore(
            initialState: initialState, reducer: reducer,
            diagnostics: Diagnostics { recorder.append($0) }, middleware: middleware)
        recording = store.observeActions { action, state in
            recorder.append(action, state)
        }
    }

    deinit {
        guard !hasFinished, exhaustivity == .on else {
            store.shutDown()
            return
        }
        var problems: [String] = []
        let running = store.runningEffects
        if !running.isEmpty {
            problems.append(
                "\(running.count) effect(s) still running, started by: "
                    + running.map { ValueRenderer.oneLine($0) }.joined(separator: ", ")
                    + ". Receive their actions, cancel them, or end the test with `await store.finish()`.")
        }
        problems += pendingProblems()
        store.shutDown()
        for problem in problems { reporter.report(problem, at: createdAt) }
    }

    /// The state as of the last step the test took.
    public var state: State {
        recorder.stepped
    }

    /// The store's live state.
    public var liveState: State {
        store.currentState
    }

    // MARK: - Sending

    /// Sends `action` and asserts the change it makes.
    @discardableResult
    nonisolated(nonsending) public func send(
        _ action: Action,
        assert updateExpected: ((inout State) throws -> Void)? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async -> StoreTask {
        reportPending(before: "sending \(ValueRenderer.oneLine(action))", at: sourceLocation)
        let start = recorder.count
        let task = store.send(action)
        await task.reduced()
        guard let index = recorder.firstUnconsumed(from: start, where: { $0 == action }) else {
            reporter.report("\(ValueRenderer.oneLine(action)) was not reduced (is the store shut down?)", at: sourceLocation)
            return task
        }
        let record = recorder.consume(index)
        // Inside the assertion, `state` is still the state before the action, as in TCA.
        assertChange(
            by: "sending \(ValueRenderer.oneLine(action))", from: record.before, to: record.after,
            updateExpected, at: sourceLocation)
        recorder.step(to: index)
        return task
    }

    // MARK: - Receiving

    /// Asserts that the next action an effect fed back is `expected`, and the change it made.
    nonisolated(nonsending) public func receive(
        _ expected: Action,
        timeout: Duration? = nil,
        assert updateExpected: ((inout State) throws -> Void)? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        reportPendingDiagnostics(before: "receiving \(ValueRenderer.oneLine(expected))", at: sourceLocation)
        let deadline = ContinuousClock.now.advanced(by: timeout ?? self.timeout)
        while true {
            let generation = recorder.generation
            if let index = recorder.firstUnconsumed(from: 0, where: { _ in true }) {
                let record = recorder.consume(index)
                if record.action == expected {
                    assertChange(
                        by: "receiving \(ValueRenderer.oneLine(expected))", from: record.before,
                        to: record.after, updateExpected, at: sourceLocation)
                    recorder.step(to: index)
                    return
                }
                recorder.step(to: index)
                // An action a failure already named is not reported again.
                if exhaustivity == .on, !record.isReported {
                    let diff = ValueDiff(old: expected, new: record.action)
                    reporter.report(
                        """
                        Expected to receive \(ValueRenderer.oneLine(expected)), but received \(ValueRenderer.oneLine(record.action)) \
                        (− expected, + received):
                        \(diff.render(oldMarker: "−", newMarker: "+"))
                        """, at: sourceLocation)
                    return
                }
                continue
            }
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else {
                let running = store.runningEffects.map { ValueRenderer.oneLine($0) }
                reporter.report(
                    """
                    Expected to receive \(ValueRenderer.oneLine(expected)), but no action arrived within \(timeout ?? self.timeout)\
                    \(running.isEmpty ? " and no effect is running" : "; effects still running, started by: " + running.joined(separator: ", ")).
                    """, at: sourceLocation)
                return
            }
            await recorder.waitForChange(since: generation, timeout: remaining)
        }
    }

    // MARK: - Diagnostics

    /// Asserts that the store reported a diagnostic of `kind` (whose message contains `text`,
    /// when given), waiting up to ``timeout`` for an effect to report it.
    nonisolated(nonsending) public func expectDiagnostic(
        _ kind: Diagnostic.Kind,
        containing text: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        let matches: (Diagnostic) -> Bool = { $0.kind == kind && (text.map($0.message.contains) ?? true) }
        while true {
            let generation = recorder.generation
            if recorder.consumeDiagnostic(where: matches) != nil { return }
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else {
                let reported = recorder.pendingDiagnostics.map(\.description)
                reporter.report(
                    """
                    Expected a \(kind.rawValue) diagnostic\(text.map { " containing \"\($0)\"" } ?? "")\
                    \(reported.isEmpty ? ", but none was reported" : ", but only these were reported:\n" + reported.joined(separator: "\n"))
                    """, at: sourceLocation)
                return
            }
            await recorder.waitForChange(since: generation, timeout: remaining)
        }
    }

    // MARK: - Ending

    /// Waits up to `timeout` (default ``timeout``) for every effect to finish, then asserts that
    /// nothing is left unasserted: received actions, diagnostics, running effects.
    nonisolated(nonsending) public func finish(timeout: Duration? = nil, sourceLocation: SourceLocation = #_sourceLocation) async {
        hasFinished = true
        let limit = timeout ?? self.timeout
        let settled = await store.waitForEffects(timeout: limit)
        if !settled {
            let running = store.runningEffects
            if exhaustivity == .on, !running.isEmpty {
                reporter.report(
                    """
                    \(running.count) effect(s) still running after \(limit), started by: \
                    \(running.map { ValueRenderer.oneLine($0) }.joined(separator: ", ")). \
                    Advance the test clock, receive their actions, or cancel them.
                    """, at: sourceLocation)
            }
            store.shutDown()
        }
        if exhaustivity == .on {
            for problem in pendingProblems() { reporter.report(problem, at: sourceLocation) }
        }
    }

    /// Marks every action received so far as asserted.
    public func skipReceivedActions() {
        recorder.consumeAll()
    }

    /// Marks every diagnostic reported so far as asserted.
    public func skipDiagnostics() {
        _ = recorder.drainDiagnostics()
    }

    /// Cancels every running effect, so the test may end without waiting for them.
    public func cancelEffects() {
        store.shutDown()
    }

    // MARK: - Checks

    private func assertChange(
        by step: String, from before: State, to actual: State,
        _ updateExpected: ((inout State) throws -> Void)?, at location: SourceLocation
    ) {
        var expected: State
        switch exhaustivity {
        case .on:
            expected = before
        case .off:
            // Apply the test's assertions to the actual state: only what they set is checked.
            expected = actual
        }
        do {
            try updateExpected?(&expected)
        } catch {
            reporter.report("The assertion after \(step) threw \(error)", at: location)
            return
        }
        if updateExpected != nil, exhaustivity == .on, actual == before, expected == before {
            reporter.report(
                """
                Expected \(step) to change the state, but it changed nothing, and neither did the \
                assertion closure. If no change is expected, leave the closure out.
                """, at: location)
            return
        }
        guard expected != actual else { return }
        let diff = ValueDiff(old: expected, new: actual)
        reporter.report(
            """
            State after \(step) is not as expected (− expected, + actual):
            \(diff.isEmpty ? "(the values differ but render the same)" : diff.render(oldMarker: "−", newMarker: "+"))
            """, at: location)
    }

    private func reportPending(before step: String, at location: SourceLocation) {
        guard exhaustivity == .on else {
            recorder.consumeAll()
            _ = recorder.drainDiagnostics()
            return
        }
        for problem in pendingProblems(before: step) { reporter.report(problem, at: location) }
    }

    private func reportPendingDiagnostics(before step: String, at location: SourceLocation) {
        let problem = unexpectedDiagnostics(when: " before \(step)")
        guard exhaustivity == .on, let problem else { return }
        reporter.report(problem, at: location)
    }

    /// Describes unasserted received actions (each once) and diagnostics (clearing those).
    private func pendingProblems(before step: String? = nil) -> [String] {
        var problems: [String] = []
        let received = recorder.reportUnasserted()
        let when = step.map { " before \($0)" } ?? ""
        if !received.isEmpty {
            problems.append(
                "\(received.count) received action(s) must be asserted\(when):\n"
                    + received.map { ValueRenderer.oneLine($0) }.joined(separator: "\n"))
        }
        if let diagnostics = unexpectedDiagnostics(when: when) { problems.append(diagnostics) }
        return problems
    }

    /// Describes (and clears) the diagnostics no test expected, if any.
    private func unexpectedDiagnostics(when: String) -> String? {
        let diagnostics = recorder.drainDiagnostics()
        guard !diagnostics.isEmpty else { return nil }
        return "\(diagnostics.count) diagnostic(s) must be expected\(when):\n"
            + diagnostics.map(\.description).joined(separator: "\n")
    }
}

/// Where a ``TestStore`` reports failures.
public struct FailureReporter: Sendable {
    private let handler: @Sendable (String, SourceLocation) -> Void

    /// A reporter that hands each failure message and its source location to `handler`.
    public init(_ handler: @escaping @Sendable (_ message: String, _ location: SourceLocation) -> Void) {
        self.handler = handler
    }

    /// Reports a failure.
    public func report(_ message: String, at location: SourceLocation) {
        handler(message, location)
    }

    /// Records each failure as a Swift Testing issue.
    public static let swiftTesting = FailureReporter { message, location in
        Issue.record(Comment(rawValue: message), sourceLocation: location)
    }
}

/// Every action a test store reduced, with states before and after, and every diagnostic.
private final class Recorder<State: Sendable, Action: Sendable>: Sendable {
    struct Record: Sendable {
        let action: Action
        let before: State
        let after: State
        var isConsumed = false
        /// Whether a failure already named it as not received; a later `receive` of it is fine.
        var isReported = false
    }

    private struct Contents {
        var latest: State
        /// The latest record the test consumed (by a step), if any.
        var steppedIndex: Int?
        var records: [Record] = []
        var diagnostics: [Diagnostic] = []
        var waiters = Waiters()
        /// Counts recorded actions and diagnostics, so a waiter can tell it missed none.
        var generation: UInt64 = 0
    }

    private let contents: Locked<Contents>

    init(initialState: State) {
        contents = Locked(Contents(latest: initialState))
    }

    /// The state the test's last step left (the initial state before any).
    var stepped: State {
        contents.withLock { contents in
            if let index = contents.steppedIndex { return contents.records[index].after }
            return contents.records.first?.before ?? contents.latest
        }
    }

    var count: Int { contents.withLock { $0.records.count } }

    var generation: UInt64 { contents.withLock { $0.generation } }

    var pendingDiagnostics: [Diagnostic] { contents.withLock { $0.diagnostics } }

    func append(_ action: Action, _ state: State) {
        signal { contents in
            contents.records.append(Record(action: action, before: contents.latest, after: state))
            contents.latest = state
        }
    }

    func append(_ diagnostic: Diagnostic) {
        signal { $0.diagnostics.append(diagnostic) }
    }

    func firstUnconsumed(from start: Int, where matches: (Action) -> Bool) -> Int? {
        contents.withLock { contents in
            guard start < contents.records.count else { return nil }
            return contents.records[start...].firstIndex { !$0.isConsumed && matches($0.action) }
        }
    }

    func consume(_ index: Int) -> Record {
        contents.withLock { contents in
            contents.records[index].isConsumed = true
            return contents.records[index]
        }
    }

    /// Makes the state after the record at `index` the test's ``TestStore/state``.
    func step(to index: Int) {
        contents.withLock { $0.steppedIndex = max($0.steppedIndex ?? index, index) }
    }

    /// The actions received and neither asserted nor reported yet, now marked reported: a
    /// failure names each once, and a later `receive` may still assert it.
    func reportUnasserted() -> [Action] {
        contents.withLock { contents in
            var actions: [Action] = []
            for index in contents.records.indices where !contents.records[index].isConsumed && !contents.records[index].isReported {
                contents.records[index].isReported = true
                actions.append(contents.records[index].action)
            }
            return actions
        }
    }

    @discardableResult
    func consumeAll() -> [Action] {
        contents.withLock { contents in
            var actions: [Action] = []
            for index in contents.records.indices where !contents.records[index].isConsumed {
                contents.records[index].isConsumed = true
                actions.append(contents.records[index].action)
            }
            if let last = contents.records.indices.last { contents.steppedIndex = last }
            return actions
        }
    }

    func consumeDiagnostic(where matches: (Diagnostic) -> Bool) -> Diagnostic? {
        contents.withLock { contents in
            guard let index = contents.diagnostics.firstIndex(where: matches) else { return nil }
            return contents.diagnostics.remove(at: index)
        }
    }

    func drainDiagnostics() -> [Diagnostic] {
        contents.withLock { contents in
            defer { contents.diagnostics.removeAll() }
            return contents.diagnostics
        }
    }

    /// Returns once something was recorded after `generation`, or after `timeout`.
    func waitForChange(since generation: UInt64, timeout: Duration) async {
        await contents.wait(in: \.waiters, timeout: timeout) { $0.generation != generation }
    }

    private func signal(_ change: (inout Contents) -> Void) {
        let waiters = contents.withLock { contents in
            change(&contents)
            contents.generation += 1
            return contents.waiters.takeAll()
        }
        waiters.forEach { $0.resume() }
    }
}
