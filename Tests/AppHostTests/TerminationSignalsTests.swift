import AppHost
import Foundation
import TestSupport
import Testing

@Suite("Termination signals")
struct TerminationSignalsTests {
    /// SIGUSR2 stands for SIGTERM here: the test process must not end. Nothing else in the
    /// suite sends it, and a second one would end the process (`_exit`), so it is sent once.
    @Test func aSignalSentAsSoonAsCatchingReturnsIsHeard() async {
        let heard = Collected<Int32>()
        TerminationSignals.catching([SIGUSR2]) { heard.append($0) }
        kill(getpid(), SIGUSR2)
        // Before catching waited for its source's registration, the signal was ignored and lost
        // whenever it came before libdispatch had registered it.
        #expect(await eventually { heard.all == [SIGUSR2] })
    }
}
