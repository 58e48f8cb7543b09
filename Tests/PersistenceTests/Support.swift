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
