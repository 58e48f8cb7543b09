import StateStore
import StateStoreTesting
import Testing

/// A counter shared with tasks.
private final class Tally: Sendable {
    private let value = Locked(0)
    func increment() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
}

/// Order of events shared with tasks.
private final class Events: Sendable {
    private let values = Locked<[String]>([])
    func append(_ event: String) { values.withLock { $0.append(event) } }
    var all: [String] { values.withLock { $0 } }
}

/// Waits (yielding, briefly sleeping) until `count` tasks sleep on `clock`.
private func sleepers(_ count: Int, on clock: TestClock) async {
    for _ in 0..<2000 where clock.sleeperCount < count {
        try? await Task.sleep(for: .milliseconds(1))
    }
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
        await sleepers(1, on: clock)
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
        let order = Events()
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
        await sleepers(2, on: clock)
        await clock.advance(by: .seconds(10))
        _ = await (late.result, early.result)
        #expect(order.all == ["early", "early again", "late"])
    }

    @Test func cancellingASleepThrowsCancellation() async {
        let clock = TestClock()
        let sleeper = Task { try await clock.sleep(for: .seconds(1)) }
        await sleepers(1, on: clock)
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
        await sleepers(1, on: clock)
        await clock.run()
        _ = await ticker.result
        #expect(ticks.count == 5)
        #expect(clock.now.offset == .seconds(5))
    }
}
