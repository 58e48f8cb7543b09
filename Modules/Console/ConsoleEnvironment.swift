import AppEnvironment
import Foundation
import Reducers
import StateStore

/// What a console session runs on: the clients, the failure switchboard behind `fail`, and the
/// manual clock behind `advance` (absent with the live clock).
public struct ConsoleEnvironment: Sendable {
    /// The clients the app uses, with failure injection installed.
    public let app: AppEnvironment
    /// What `fail <client.endpoint>` arms.
    public let failures: FailureInjector
    /// The clock `advance` moves; `nil` when time is real.
    public let manualClock: ManualClock?
    /// A name for banners: `memory` or `live`.
    public let name: String

    /// Wraps `base` so `fail` reaches every endpoint.
    public init(name: String, base: AppEnvironment, manualClock: ManualClock?) {
        let failures = FailureInjector()
        self.name = name
        self.failures = failures
        self.manualClock = manualClock
        app = base.injectingFailures(failures)
    }

    /// The in-memory clients on a manual clock starting at a fixed date: every run of a script
    /// gives the same ids, dates and output.
    public static func memory() -> ConsoleEnvironment {
        let clock = ManualClock()
        return ConsoleEnvironment(name: "memory", base: .inMemory(clock: clock), manualClock: clock)
    }
}
