// What every benchmark case is made of: measurements, run plans and timing. Foundation-free, so
// that a process running only store cases (memory-dispatch) loads nothing more than the store.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One row of the report: the median of repeated runs, with their spread.
package struct CaseResult {
    package enum Unit: String {
        case nanoseconds = "ns"
        case ratio
        case perSecond = "per_s"
        case bytes
        case milliseconds = "ms"
        case microseconds = "µs"
        /// Percent of one core.
        case percent = "%"
    }

    package let name: String
    package let unit: Unit
    package let samples: [Double]
    /// What the issue asks for, for the table: `"≤ 100"`, `"≥ 100000"`, or `nil` when only shown.
    package let target: Target?

    package init(name: String, unit: Unit, samples: [Double], target: Target?) {
        self.name = name
        self.unit = unit
        self.samples = samples
        self.target = target
    }

    package var median: Double {
        let sorted = samples.sorted()
        let middle = sorted.count / 2
        return sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
    }

    package var min: Double { samples.min() ?? 0 }
    package var max: Double { samples.max() ?? 0 }

    /// Whether a larger value is better: from the target's direction, else from the unit.
    package var largerIsBetter: Bool {
        switch target {
        case .atLeast: true
        case .atMost: false
        case nil: unit == .perSecond
        }
    }

    /// How much better this median is than `earlier`: above 1 better, below 1 worse.
    package func improvement(over earlier: Double) -> Double {
        largerIsBetter ? median / earlier : earlier / median
    }
}

/// A bound a measurement should stay within.
package enum Target {
    case atMost(Double)
    case atLeast(Double)

    package func isMet(by value: Double) -> Bool {
        switch self {
        case .atMost(let bound): value <= bound
        case .atLeast(let bound): value >= bound
        }
    }

    package func text(_ format: (Double) -> String) -> String {
        switch self {
        case .atMost(let bound): "≤ \(format(bound))"
        case .atLeast(let bound): "≥ \(format(bound))"
        }
    }
}

/// How many runs each case gets.
package struct RunPlan {
    package var warmUps = 1
    package var runs = 7
    /// Multiplies every case's iteration count (`--quick` uses a fraction).
    package var scale = 1.0

    package init(warmUps: Int = 1, runs: Int = 7, scale: Double = 1.0) {
        self.warmUps = warmUps
        self.runs = runs
        self.scale = scale
    }

    package func iterations(_ base: Int) -> Int {
        Swift.max(1, Int(Double(base) * scale))
    }
}

/// Nanoseconds since an arbitrary start, from the monotonic clock.
@inline(__always)
package func monotonicNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// What this process has used so far (`getrusage`).
private func processUsage() -> rusage {
    var usage = rusage()
    #if canImport(Glibc)
    getrusage(RUSAGE_SELF.rawValue, &usage)
    #else
    getrusage(RUSAGE_SELF, &usage)
    #endif
    return usage
}

/// How many times this process's threads have given up a core so far: a thread that waits for
/// another and is woken counts one.
package func contextSwitches() -> Int {
    let usage = processUsage()
    return usage.ru_nvcsw + usage.ru_nivcsw
}

/// User and system CPU time of this process so far.
package func processCPUNanoseconds() -> UInt64 {
    let usage = processUsage()
    let micros = (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1_000_000 + Int(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec)
    return UInt64(micros) * 1_000
}

/// Times `body`, which performs `operations` operations, and returns nanoseconds per operation.
@inline(never)
package func nanosecondsPerOperation(_ operations: Int, _ body: () -> Void) -> Double {
    let start = monotonicNanoseconds()
    body()
    let end = monotonicNanoseconds()
    return Double(end - start) / Double(operations)
}

/// Keeps a value alive and observable so the optimiser cannot remove the work producing it.
@inline(never)
package func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

/// Runs `sample` `plan.warmUps` times unmeasured, then `plan.runs` times.
package func repeated(_ plan: RunPlan, _ sample: () -> Double) -> [Double] {
    for _ in 0..<plan.warmUps { _ = sample() }
    return (0..<plan.runs).map { _ in sample() }
}

/// Async version of ``repeated(_:_:)``.
package func repeated(_ plan: RunPlan, _ sample: () async -> Double) async -> [Double] {
    for _ in 0..<plan.warmUps { _ = await sample() }
    var samples: [Double] = []
    for _ in 0..<plan.runs { samples.append(await sample()) }
    return samples
}

/// Measures `base` and `variant` alternately in each run and returns `variant / base` per run,
/// so noise from the shared machine hits both sides alike.
package func pairedRatios(_ plan: RunPlan, base: () -> Double, variant: () -> Double) -> (ratios: [Double], base: [Double]) {
    for _ in 0..<plan.warmUps {
        _ = base()
        _ = variant()
    }
    var ratios: [Double] = []
    var bases: [Double] = []
    for _ in 0..<plan.runs {
        let baseValue = base()
        let variantValue = variant()
        ratios.append(variantValue / baseValue)
        bases.append(baseValue)
    }
    return (ratios, bases)
}

// MARK: - Reporting

/// This process's peak resident memory since it started its program, in bytes, from the
/// kernel's high-water mark (`VmHWM` in `/proc/self/status`); `nil` where there is none.
/// `getrusage` will not do: on Linux a spawned child's `ru_maxrss` starts from its parent's, so
/// a child of a big benchmark process looks big too.
package func ownPeakResidentBytes() -> Double? {
    #if os(Linux)
    guard let file = fopen("/proc/self/status", "r") else { return nil }
    defer { fclose(file) }
    var line: UnsafeMutablePointer<CChar>?
    var capacity = 0
    defer { free(line) }
    while getline(&line, &capacity, file) > 0, let line {
        let text = String(cString: line)
        guard text.hasPrefix("VmHWM:") else { continue }
        let kilobytes = text.dropFirst(6).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap { Double($0) }
        return kilobytes.map { $0 * 1024 }
    }
    return nil
    #else
    return nil
    #endif
}
