import AppHost
import Foundation
import StoreBenchmarks

/// The cases of the front-end issue (27): what a UI's main actor and a pipe's reader see.

/// The longest gap, in milliseconds, between the ticks of a main-actor ticker (1 ms sleeps)
/// while the main actor performs, on a database: a sign-up, a sign-in to an account holding
/// `scaleNotes` notes (which lists them) and a reload of those notes.
@MainActor
func mainActorStallSample(databasePath path: String) async -> Double {
    guard let host = try? await AppHost(storage: .database(path: path), options: AppHost.Options(journal: .off, history: nil)) else {
        fatalError("the benchmark host could not open \(path)")
    }
    let ticker = MainActorTicker()
    ticker.start()
    let account = "stall.\(UUID().uuidString.prefix(8).lowercased())"
    let intents: [Intent] = [
        .signUp(username: account, password: "benchmark"),
        .typeUsername(username: scaleCredentials.username.rawValue), .typePassword(password: scaleCredentials.password.revealed),
        .signIn, .reloadNotes,
    ]
    for intent in intents {
        let outcome = await host.perform(intent, timeout: .seconds(60))
        precondition(outcome.status == .completed, "\(intent) ended \(outcome.status)")
    }
    precondition(host.screens.notes.count == scaleNotes, "the reload did not list every note")
    let longest = ticker.stop()
    try? await host.close(timeout: .zero)
    return Double(longest) / 1e6
}

/// Ticks on the main actor every millisecond it can, and keeps the longest gap between ticks.
@MainActor
final class MainActorTicker {
    private var task: Task<Void, Never>?
    private var longestGap: UInt64 = 0
    private var lastTick: UInt64 = 0

    func start() {
        lastTick = monotonicNanoseconds()
        task = Task { @MainActor in
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(1))
                tick()
            }
        }
    }

    private func tick() {
        let now = monotonicNanoseconds()
        longestGap = max(longestGap, now - lastTick)
        lastTick = now
    }

    /// Stops ticking; the longest gap seen, in nanoseconds, counting the one up to now (a main
    /// actor blocked throughout never ticks at all).
    func stop() -> UInt64 {
        tick()
        task?.cancel()
        return longestGap
    }
}

func frontEndBenchmarks(_ plan: RunPlan, selected: @Sendable (String) -> Bool) async -> [CaseResult] {
    var measurements: [CaseResult] = []
    if selected("main-actor-stall") {
        let folder = NSTemporaryDirectory() + "appcore-bench-stall-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/stall.sqlite"
        do { try await prepareSignInDatabase(at: path, notes: scaleNotes) } catch { fatalError("could not prepare \(path): \(error)") }
        let samples = await repeated(plan) { await mainActorStallSample(databasePath: path) }
        measurements.append(CaseResult(name: "main-actor-stall", unit: .milliseconds, samples: samples, target: .atMost(8)))
    }
    return measurements
}
