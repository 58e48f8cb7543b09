import Foundation
import Reducers
import StateStore
import TestSupport
import Testing

@testable import Persistence

/// A commit asked for where work settles: written right there on the database's work queue (the
/// thread a live client's call ends on), on that queue from anywhere else.
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

        journal.append(.incrementTapped)
        let (sequence, wasOnQueue) = await withCheckedContinuation { continuation in
            journal.commit { result in continuation.resume(returning: ((try? result.get()), database.isOnWorkQueue)) }
        }
        #expect(sequence == 2 && wasOnQueue, "from elsewhere, written on the work queue")
        #expect(try journal.entries().map(\.sequence) == [1, 2])
        // Nothing to write: answered at once, here.
        let answer = Locked<Result<Int, DatabaseError>?>(nil)
        journal.commit { result in answer.withLock { $0 = result } }
        #expect(try answer.withLock { $0 }?.get() == 2)
    }
}
