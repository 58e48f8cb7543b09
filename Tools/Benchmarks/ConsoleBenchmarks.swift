import Console

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

/// The cases of the front-ends issue.
func consoleBenchmarks(_ plan: RunPlan, selected: @Sendable (String) -> Bool) async -> [Measurement] {
    guard selected("batch-replay") else { return [] }
    let lines = plan.iterations(100_000)
    let samples = await repeated(plan) { await batchReplaySample(lines) }
    return [Measurement(name: "batch-replay", unit: .perSecond, samples: samples, target: .atLeast(200_000))]
}
