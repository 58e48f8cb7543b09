extension Store {
    /// Sends each element of `actions` to the store, in order, as it arrives.
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

    /// Runs `operation` off the store and sends the action it produces, if any.
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
