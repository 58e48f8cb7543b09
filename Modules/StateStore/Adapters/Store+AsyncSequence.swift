extension Store {
    /// Sends each element of `actions` to the store, in order, as it arrives.
    ///
    /// - Returns: A handle that finishes when the sequence ends, and stops reading it when
    ///   cancelled. An error thrown by the sequence ends it and is reported as an unhandled
    ///   effect error.
    @discardableResult
    public func send<Actions: AsyncSequence & Sendable>(contentsOf actions: Actions) -> StoreTask
    where Actions.Element == Action {
        let task = Task { [self] in
            do {
                for try await action in actions {
                    send(action)
                }
            } catch {
                if !(error is CancellationError) { reportSequenceFailure(error) }
            }
        }
        return StoreTask(tasks: [task])
    }

    /// Runs `operation` off the store and sends the action it produces, if any — for a result
    /// that arrives once, like a promise.
    @discardableResult
    public func send(from operation: @escaping @Sendable () async -> Action?) -> StoreTask {
        let task = Task { [self] in
            if let action = await operation() { await send(action).finish() }
        }
        return StoreTask(tasks: [task])
    }

    private func reportSequenceFailure(_ error: any Error) {
        diagnostics.report(
            Diagnostic(
                .unhandledEffectError,
                "an action sequence sent to the store failed with \(ValueRenderer.oneLine(error))"))
    }
}
