import Testing

@testable import Persistence

/// How big the search index's batches are: small while notes are written (a writer waits out
/// the rest of a batch), bigger and bigger for a backlog nobody writes meanwhile, and never
/// holding the lock much longer than `lockHold`.
@Suite("Search index batches")
struct SearchIndexBatchTests {
    typealias Size = SearchIndex.BatchSize
    let quick = Size.lockHold / 4
    let slow = Size.lockHold * 2

    @Test func aBacklogNobodyWritesMeanwhileIsTakenInEverBiggerBatches() {
        var size = Size()
        #expect(size.notes == Size.whileWriting)
        var seen = [size.notes]
        for _ in 0..<20 {
            size.adjust(after: quick, wasFull: true, duringWrites: false)
            seen.append(size.notes)
        }
        #expect(seen.prefix(3) == [128, 256, 512])
        #expect(size.notes == Size.largest)
        #expect(size.bytes == Size.largest * 512)
    }

    @Test func writesBringTheBatchBackToItsSmallSize() {
        var size = Size()
        for _ in 0..<4 { size.adjust(after: quick, wasFull: true, duringWrites: false) }
        #expect(size.notes == 2_048)
        size.adjust(after: quick, wasFull: true, duringWrites: true)
        #expect(size.notes == Size.whileWriting)
        // Nor does a quick, full batch grow while notes are written.
        size.adjust(after: quick, wasFull: true, duringWrites: true)
        #expect(size.notes == Size.whileWriting)
    }

    @Test func aBatchThatHeldTheLockTooLongHalvesTheNextDownToTheSmallest() {
        var size = Size()
        size.adjust(after: slow, wasFull: true, duringWrites: false)
        #expect(size.notes == 64)
        for _ in 0..<10 { size.adjust(after: slow, wasFull: true, duringWrites: true) }
        #expect(size.notes == Size.smallest)
    }

    @Test func aBatchThatWasNotFullOrNotQuickEnoughKeepsTheSize() {
        var size = Size()
        size.adjust(after: quick, wasFull: false, duringWrites: false)
        #expect(size.notes == Size.whileWriting)
        size.adjust(after: Size.lockHold * 3 / 4, wasFull: true, duringWrites: false)
        #expect(size.notes == Size.whileWriting)
    }
}
