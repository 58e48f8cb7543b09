import Foundation

/// Runs `work` — waiting for a process, reading a pipe to its end — on a thread of its own, so
/// the few threads Swift concurrency shares between all the tests running at once stay free.
func onOwnThread<Result: Sendable>(_ work: @escaping @Sendable () throws -> Result) async throws -> Result {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Swift.Result { try work() }) }.start()
    }
}
