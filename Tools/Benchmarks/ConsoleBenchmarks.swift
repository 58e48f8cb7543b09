import AppExploration
import AppHost
import Console
import StoreBenchmarks

/// A script of `lines` lines a batch job might run: counting, typing, checking.
func benchmarkScript(lines: Int) -> String {
    let pattern = [
        "counter.increment", "login.username \"alice liddell\"", "expect counter.count > 0",
        "counter.decrement", "counter.increment", "login.username alice.liddell", "# a comment",
        "expect login.isSignInEnabled == false",
    ]
    return (0..<lines).map { pattern[$0 % pattern.count] }.joined(separator: "\n")
}

/// Lines per second through the batch runner's engine: parse, send, wait, report.
func batchReplaySample(_ lines: Int) async -> Double {
    let script = benchmarkScript(lines: lines)
    let runner = ScriptRunner { try await ConsoleSession.scripted() }
    let start = monotonicNanoseconds()
    let report = await runner.run(script, name: "bench")
    let elapsed = monotonicNanoseconds() - start
    precondition(report.passed, "the benchmark script failed: \(report.failures.first?.output ?? "")")
    return Double(lines) / (Double(elapsed) / 1e9)
}

/// Intents per second through `AppHost` in memory, each performed until its work settled, and
/// the process's CPU time per intent meanwhile: a signed-in user adding notes and counting, as a
/// JSON-lines front end would drive it. The CPU time tells apart builds that wall time, which
/// depends on how this noisy machine places the threads, cannot.
func hostPerformSample(_ intents: Int) async -> (perSecond: Double, cpuMicroseconds: Double) {
    guard let host = try? await AppHost(storage: .inMemory(), options: AppHost.Options(history: nil)) else {
        fatalError("the benchmark host could not start")
    }
    for intent: Intent in [
        .signUp(username: "bench.writer", password: "benchmark"), .typeUsername(username: "bench.writer"),
        .typePassword(password: "benchmark"), .signIn,
    ] {
        let outcome = await host.perform(intent)
        precondition(outcome.status == .completed, "the benchmark host could not sign in: \(outcome.status)")
    }
    let start = monotonicNanoseconds()
    let cpuBefore = processCPUNanoseconds()
    for number in 0..<intents {
        let outcome = await host.perform(number % 2 == 0 ? .addNote(text: "note \(number)") : .increment)
        precondition(outcome.status == .completed, "intent \(number) ended \(outcome.status)")
    }
    let cpu = processCPUNanoseconds() - cpuBefore
    let elapsed = monotonicNanoseconds() - start
    try? await host.close(timeout: .zero)
    return (Double(intents) / (Double(elapsed) / 1e9), Double(cpu) / 1e3 / Double(intents))
}

/// The cases of the front-ends issues.
/// States per second of an exploration of the app to `depth` intents.
func exploreSample(depth: Int) async -> Double {
    let start = monotonicNanoseconds()
    let outcome = await AppExplorer(depth: depth).run()
    let elapsed = monotonicNanoseconds() - start
    precondition(outcome.violatedInvariant == nil, "the exploration found a broken invariant: \(outcome)")
    return Double(outcome.statesVisited) / (Double(elapsed) / 1e9)
}

func consoleBenchmarks(_ plan: RunPlan, selected: @Sendable (String) -> Bool) async -> [CaseResult] {
    var measurements: [CaseResult] = []
    if selected("batch-replay") {
        let lines = plan.iterations(100_000)
        let samples = await repeated(plan) { await batchReplaySample(lines) }
        measurements.append(CaseResult(name: "batch-replay", unit: .perSecond, samples: samples, target: .atLeast(500_000)))
    }
    if selected("host-perform") || selected("host-perform-cpu") {
        let intents = plan.iterations(10_000)
        var cpu: [Double] = []
        let samples = await repeated(plan) {
            let sample = await hostPerformSample(intents)
            cpu.append(sample.cpuMicroseconds)
            return sample.perSecond
        }
        if selected("host-perform") {
            measurements.append(CaseResult(name: "host-perform", unit: .perSecond, samples: samples, target: nil))
        }
        if selected("host-perform-cpu") {
            // The last ones: the warm-ups were recorded first.
            measurements.append(CaseResult(name: "host-perform-cpu", unit: .microseconds, samples: Array(cpu.suffix(samples.count)), target: nil))
        }
    }
    if selected("explore") {
        // The whole app to depth 5 (depth 3 for --quick), as appcore-batch --explore runs it.
        let depth = plan.scale < 1 ? 3 : 5
        let samples = await repeated(plan) { await exploreSample(depth: depth) }
        measurements.append(CaseResult(name: "explore", unit: .perSecond, samples: samples, target: nil))
    }
    return measurements
}
