import Dispatch
import Foundation
import Persistence
import StateStore
import TestSupport
import Testing

func contents(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

func permissions(_ path: String) -> Int? {
    (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue
}

/// A flag one task sets and another waits for.
final class Flag: Sendable {
    private let value = Locked(false)

    func set() { value.withLock { $0 = true } }

    var isSet: Bool { value.withLock { $0 } }

    func wait() async {
        while !isSet { try? await Task.sleep(for: .milliseconds(1)) }
    }
}

/// Holds a database's write lock from a thread of its own (not the tasks' shared pool, which a
/// blocked holder would starve) until released.
final class LockHolder: Sendable {
    private let release = DispatchSemaphore(value: 0)
    private let finished = Flag()
    private let failure = Locked<DatabaseError?>(nil)

    /// Starts holding `database`'s write lock; returns once it is held.
    static func hold(_ database: Database) async -> LockHolder {
        let holding = Flag()
        let holder = LockHolder()
        let thread = Thread { [release = holder.release, finished = holder.finished] in
            do throws(DatabaseError) {
                try database.write { _ throws(DatabaseError) in
                    holding.set()
                    release.wait()
                }
            } catch {
                holder.failure.withLock { $0 = error }
                holding.set()
            }
            finished.set()
        }
        thread.start()
        await holding.wait()
        return holder
    }

    /// Lets the lock go and waits until the holder's transaction ended.
    func release() async throws {
        release.signal()
        await finished.wait()
        if let failure = failure.withLock({ $0 }) { throw failure }
    }
}

/// This test binary re-run as a child process that runs only the test `filter` names, with
/// `environment` added; its standard output is collected as it comes.
final class TestChild: Sendable {
    let process: Process
    private let output = Locked(Data())
    private let pipe = ChildProcesses.pipe()

    init(running filter: String, environment: [String: String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        process.arguments = ["--testing-library", "swift-testing", "--filter", filter]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        self.process = process
        // Holds the child object until `waitUntilExit` removes the handler.
        pipe.fileHandleForReading.readabilityHandler = { [self] handle in
            let chunk = handle.availableData
            output.withLock { $0.append(chunk) }
        }
        try ChildProcesses.start(process)
    }

    /// The lines the child printed so far.
    var lines: [Substring] {
        output.withLock { String(decoding: $0, as: UTF8.self) }.split(separator: "\n")
    }

    /// Waits (up to `timeout`) until the child printed a line satisfying `condition`.
    func waitForLine(timeout: Duration = .seconds(30), where condition: ([Substring]) -> Bool) async {
        let deadline = ContinuousClock.now + timeout
        while !condition(lines), process.isRunning, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Waits until the child exits and stops collecting its output.
    func waitUntilExit() {
        process.waitUntilExit()
        pipe.fileHandleForReading.readabilityHandler = nil
    }
}
