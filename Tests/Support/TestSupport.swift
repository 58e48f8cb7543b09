import Dispatch
import Foundation
import StateStore

// What every test target shares: temporary folders, waiting without blocking the tasks' shared
// threads, and thread-safe collectors. A regular target (not a test target), linked into each.

/// A fresh folder under the system's temporary directory, created at once and removed with the
/// value.
public final class TemporaryFolder: Sendable {
    /// The folder's path.
    public let path: String

    /// A folder named `prefix` and a unique suffix.
    public init(_ prefix: String = "appcore-tests") {
        path = NSTemporaryDirectory() + "\(prefix)-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// The path of `name` in the folder.
    public func file(_ name: String) -> String { path + "/" + name }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// How long a test waits for work it set in motion: far beyond what the work takes, since on a
/// loaded two-core machine a task that becomes ready may wait seconds for a thread.
public let patience: Duration = .seconds(30)

/// Whether `condition` held within `timeout` (checked once more after it: a busy machine may
/// wake this task late). For work other threads finish that signals nothing a test can wait on.
public func eventually(within timeout: Duration = patience, _ condition: @Sendable () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        guard ContinuousClock.now < deadline else { return condition() }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return true
}

extension ManualClock {
    /// Whether at least `count` sleeps wait on the clock within `timeout`: woken by each sleep
    /// that starts, not by polling.
    public func untilSleeping(count: Int = 1, within timeout: Duration = patience) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            let version = sleeps.version
            if sleeperCount >= count { return true }
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { return sleeperCount >= count }
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.sleeps.wait(after: version) }
                group.addTask { try? await Task.sleep(for: remaining) }
                await group.next()
                group.cancelAll()
            }
        }
    }
}

/// Values appended from any thread, read in order.
public final class Collected<Value: Sendable>: Sendable {
    private let values = Locked<[Value]>([])

    /// An empty collection.
    public init() {}

    /// Adds `value`.
    public func append(_ value: Value) { values.withLock { $0.append(value) } }

    /// Every value so far.
    public var all: [Value] { values.withLock { $0 } }

    /// How many values so far.
    public var count: Int { values.withLock { $0.count } }

    /// The values so far, leaving none.
    public func take() -> [Value] {
        values.withLock { values in
            defer { values.removeAll() }
            return values
        }
    }
}

/// Runs `work` — waiting for a process, reading a pipe to its end — on a thread of its own, so
/// the few threads Swift concurrency shares between all the tests running at once stay free.
public func onOwnThread<Result: Sendable>(_ work: @escaping @Sendable () throws -> Result) async throws -> Result {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Swift.Result { try work() }) }.start()
    }
}

/// A gate one thread opens and another waits at, for a bounded time.
public final class Latch: @unchecked Sendable {
    private let condition = NSCondition()
    private var isOpen = false

    /// A closed gate.
    public init() {}

    /// Opens the gate.
    public func open() {
        condition.lock()
        isOpen = true
        condition.broadcast()
        condition.unlock()
    }

    /// Whether the gate is open.
    public var isSet: Bool {
        condition.lock()
        defer { condition.unlock() }
        return isOpen
    }

    /// Whether it opened within `seconds` (blocks the calling thread).
    public func wait(atMost seconds: TimeInterval) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date().addingTimeInterval(seconds)
        while !isOpen, condition.wait(until: deadline) {}
        return isOpen
    }
}

/// What `operation` returns, or `nil` once `timeout` passes on the continuous clock first.
/// `operation` must end soon after it is cancelled.
public func withTimeout<Value: Sendable>(_ timeout: Duration, _ operation: @escaping @Sendable () async -> Value?) async -> Value? {
    await withTaskGroup(of: Value?.self) { group in
        group.addTask { await operation() }
        group.addTask {
            try? await Task.sleep(for: timeout)
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}

/// Whether `operation` returned before `timeout` passed on the continuous clock.
public func withTimeout(_ timeout: Duration, _ operation: @escaping @Sendable () async -> Void) async -> Bool {
    await withTimeout(timeout) { () async -> Bool? in
        await operation()
        return Task.isCancelled ? nil : true
    } ?? false
}
