/// Runs `operation` until it returns or `timeout` passes on the continuous clock, whichever
/// comes first; returns whether `operation` returned. `operation` must end soon after it is
/// cancelled.
func withTimeout(_ timeout: Duration, _ operation: @escaping @Sendable () async -> Void) async -> Bool {
    await withTaskGroup(of: Bool.self) { group in
        group.addTask {
            await operation()
            return !Task.isCancelled
        }
        group.addTask {
            try? await Task.sleep(for: timeout)
            return false
        }
        let first = await group.next() ?? false
        group.cancelAll()
        return first
    }
}
