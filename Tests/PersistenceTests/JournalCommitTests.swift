import Foundation
import Reducers
import StateStore
import TestSupport
import Testing

@testable import Persistence

/// A commit asked for where work settles: written right there on the database's work queue (the
/// thread a live client's call ends on) or wherever nothing is in the way, on that queue
/// otherwise.
@Suite("Journal commits where work settles")
struct JournalCommitTests {
    let folder = TemporaryFolder()

    @Test func onTheWorkQueueTheCommitIsWrittenBeforeItReturns() async throws {
        let database = try Database(path: folder.file("app.sqlite"), migrations: AppSchema.migrations)
        // No background flush during the test: only the commits asked for write.
        let journal = try Journal<Counter.State, Counter.Action>(database: database, stream: "counter", flushInterval: .seconds(3_600))
        journal.append(.incrementTapped)
        let onQueue = database.workQueue.sync { () -> (Result<Int, DatabaseError>?, Int) in
            let answer = Locked<Result<Int, DatabaseError>?>(nil)
            journal.commit { result in answer.withLock { $0 = result } }
            return (answer.withLock { $0 }, journal.unwrittenCount)
        }
        #expect(try onQueue.0?.get() == 1, "answered before commit(then:) returned")
        #expect(onQueue.1 == 0)

        // From elsewhere, with nothing in the way: written here too.
        journal.append(.incrementTapped)
        let here = Locked<(sequence: Int?, onQueue: Bool)?>(nil)
        journal.commit { result in here.withLock { $0 = ((try? result.get()), database.isOnWorkQueue) } }
        #expect(here.withLock { $0 }?.sequence == 2 && here.withLock { $0 }?.onQueue == false)

        // A call running on the work queue holds the way: written there, after it.
        let started = Latch()
        let release = Latch()
        let running = Task {
            await database.onWorkQueue { () in
                started.open(); _ = release.wait(atMost: 30)
            }
        }
        #expect(try await onOwnThread { started.wait(atMost: 30) })
        journal.append(.incrementTapped)
        let later = Locked<(sequence: Int?, onQueue: Bool)?>(nil)
        let answered = Latch()
        journal.commit { result in
            later.withLock { $0 = ((try? result.get()), database.isOnWorkQueue) }
            answered.open()
        }
        #expect(later.withLock { $0 } == nil, "not before the running call")
        release.open()
        await running.value
        #expect(try await onOwnThread { answered.wait(atMost: 30) })
        #expect(later.withLock { $0 }?.sequence == 3 && later.withLock { $0 }?.onQueue == true)
        #expect(try journal.entries().map(\.sequence) == [1, 2, 3])
        // Nothing to write: answered at once, here.
        let answer = Locked<Result<Int, DatabaseError>?>(nil)
        journal.commit { result in answer.withLock { $0 = result } }
        #expect(try answer.withLock { $0 }?.get() == 3)
    }
}
