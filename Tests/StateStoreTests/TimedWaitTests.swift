import StateStore
import Testing

/// Waits that give up after a timeout share one timer; none may end early or late.
@Suite struct TimedWaitTests {
    private struct Flag {
        var isSet = false
        var waiters = Waiters()
    }

    @Test func aTimedWaitEndsAtItsTimeoutNotBeforeWhateverElseWaits() async {
        let flag = Locked(Flag())
        // Waits of several lengths started together and interleaved, the longest first: the timer
        // is moved to each earlier deadline and set again after each firing.
        let timeouts: [Duration] = (0..<60).map { .milliseconds([400, 50, 250, 120, 10][$0 % 5]) }
        let clock = ContinuousClock()
        let lengths = await withTaskGroup(of: (Duration, Duration, Bool).self) { group in
            for timeout in timeouts {
                group.addTask {
                    let start = clock.now
                    let met = await flag.wait(in: \.waiters, timeout: timeout) { $0.isSet }
                    return (timeout, start.duration(to: clock.now), met)
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(lengths.count == timeouts.count)
        for (timeout, waited, met) in lengths {
            #expect(!met)
            #expect(waited >= timeout, "a wait of \(timeout) ended after \(waited)")
            // Ended from a task of the shared pool, so as late as the pool is busy (the whole
            // suite runs beside this test): the bound only catches a wait that never ends.
            #expect(waited < timeout + .seconds(30), "a wait of \(timeout) ended only after \(waited)")
        }
    }

    @Test func aWaitThatEndsInTimeLeavesNoTimerBehindToEndALaterOne() async {
        let flag = Locked(Flag())
        // Many short waits that end at once, each followed by a new one: a deadline left behind
        // by a wait that ended must not end a later wait early.
        for round in 0..<200 {
            flag.withLock { $0.isSet = false }
            async let waited = flag.wait(in: \.waiters, timeout: .seconds(30)) { $0.isSet }
            await Task.yield()
            let waiters = flag.withLock { flag in
                flag.isSet = true
                return flag.waiters.takeAll()
            }
            waiters.forEach { $0.resume() }
            #expect(await waited, "round \(round)")
        }
        let clock = ContinuousClock()
        let start = clock.now
        #expect(!(await flag.wait(in: \.waiters, timeout: .milliseconds(200)) { !$0.isSet }))
        #expect(start.duration(to: clock.now) >= .milliseconds(200))
    }
}
