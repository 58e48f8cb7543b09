import StateStore
import StateStoreTesting
import TestSupport
import Testing

/// A counter shared with tasks.
private final class Tally: Sendable {
    private let value = Locked(0)
    func increment() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
}

@Suite("TestClock")
struct TestClockTests {
    @Test func sleepSuspendsUntilTimeIsAdvancedPastItsDeadline() async {
        let clock = TestClock()
        let woke = Tally()
        let sleeper = Task {
            try await clock.sleep(for: .seconds(5))
            woke.increment()
        }
        #expect(await clock.untilSleeping(count: 1))
        #expect(clock.sleeperCount == 1)
        await clock.advance(by: .seconds(4))
        #expect(woke.count == 0)
        await clock.advance(by: .seconds(1))
        _ = await sleeper.result
        #expect(woke.count == 1)
        #expect(clock.now.offset == .seconds(5))
    }

    @Test func sleepersWakeInDeadlineOrderAndCanSleepAgain() async {
        let clock = TestClock()
        let order = Collected<String>()
        let late = Task {
            try await clock.sleep(for: .seconds(3))
            order.append("late")
        }
        let early = Task {
            try await clock.sleep(for: .seconds(1))
            order.append("early")
            try await clock.sleep(for: .seconds(1))
            order.append("early again")
        }
        #expect(await clock.untilSleeping(count: 2))
        await clock.advance(by: .seconds(10))
        _ = await (late.result, early.result)
        #expect(order.all == ["early", "early again", "late"])
    }

    @Test func cancellingASleepThrowsCancellation() async {
        let clock = TestClock()
        let sleeper = Task { try await clock.sleep(for: .seconds(1)) }
        #expect(await clock.untilSleeping(count: 1))
        sleeper.cancel()
        let result = await sleeper.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(clock.sleeperCount == 0)
    }

    @Test func aDeadlineInThePastReturnsAtOnce() async throws {
        let clock = TestClock()
        await clock.advance(by: .seconds(2))
        try await clock.sleep(until: TestClock.Instant(offset: .seconds(1)))
        #expect(clock.now.offset == .seconds(2))
    }

    @Test func runAdvancesUntilNoSleeperIsLeft() async {
        let clock = TestClock()
        let ticks = Tally()
        let ticker = Task {
            for _ in 0..<5 {
                try await clock.sleep(for: .seconds(1))
                ticks.increment()
            }
        }
        #expect(await clock.untilSleeping(count: 1))
        await clock.run()
        _ = await ticker.result
        #expect(ticks.count == 5)
        #expect(clock.now.offset == .seconds(5))
    }
}
