import AppHost
import StateStore

/// How a shell opens its host while its input may end.
public enum ShellOpening {
    /// Why a shell gave up opening.
    public struct Stuck: Error, Sendable, CustomStringConvertible {
        /// What happened, for one line on standard error.
        public let description: String
    }

    /// `open`'s host.
    public static func host(
        whileReading input: InputLines?, patience: Duration = .seconds(3), patienceWithLines: Duration = .seconds(30),
        _ open: @escaping @Sendable () async throws -> AppHost
    ) async throws -> AppHost {
        guard let input else { return try await open() }
        input.readAhead()
        return try await withCheckedThrowingContinuation { continuation in
            let answered = Locked(false)
            let answer = { @Sendable (result: Result<AppHost, any Error>) in
                let isFirst = answered.withLock { answered in
                    defer { answered = true }
                    return !answered
                }
                if isFirst { continuation.resume(with: result) }
            }
            // Not children of a group: one that never returns (a stuck call) must not be waited for.
            Task {
                do { answer(.success(try await open())) } catch { answer(.failure(error)) }
            }
            Task {
                await input.ended()
                let waited = input.hasLineReady ? patienceWithLines : patience
                try? await Task.sleep(for: waited)
                answer(
                    .failure(
                        Stuck(
                            description:
                                "the database did not open within \(waited) of the end of the input (a call to it is stuck); nothing was done")))
            }
        }
    }
}
