import Foundation

/// One row of the report: the median of repeated runs, with their spread.
struct Measurement {
    enum Unit: String {
        case nanoseconds = "ns"
        case ratio
        case perSecond = "per_s"
        case bytes
        case milliseconds = "ms"
    }

    let name: String
    let unit: Unit
    let samples: [Double]
    /// What the issue asks for, for the table: `"≤ 100"`, `"≥ 100000"`, or `nil` when only shown.
    let target: Target?

    var median: Double {
        let sorted = samples.sorted()
        let middle = sorted.count / 2
        return sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
    }

    var min: Double { samples.min() ?? 0 }
    var max: Double { samples.max() ?? 0 }

    /// Whether a larger value is better: from the target's direction, else from the unit.
    var largerIsBetter: Bool {
        switch target {
        case .atLeast: true
        case .atMost: false
        case nil: unit == .perSecond
        }
    }

    /// How much better this median is than `earlier`: above 1 better, below 1 worse.
    func improvement(over earlier: Double) -> Double {
        largerIsBetter ? median / earlier : earlier / median
    }
}

/// A bound a measurement should stay within.
enum Target {
    case atMost(Double)
    case atLeast(Double)

    func isMet(by value: Double) -> Bool {
        switch self {
        case .atMost(let bound): value <= bound
        case .atLeast(let bound): value >= bound
        }
    }

    var text: String { text(formatNumber) }

    func text(_ format: (Double) -> String) -> String {
        switch self {
        case .atMost(let bound): "≤ \(format(bound))"
        case .atLeast(let bound): "≥ \(format(bound))"
        }
    }
}

/// How many runs each case gets.
struct RunPlan {
    var warmUps = 1
    var runs = 7
    /// Multiplies every case's iteration count (`--quick` uses a fraction).
    var scale = 1.0

    func iterations(_ base: Int) -> Int {
        Swift.max(1, Int(Double(base) * scale))
    }
}

/// Nanoseconds since an arbitrary start, from the monotonic clock.
@inline(__always)
func monotonicNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// Times `body`, which performs `operations` operations, and returns nanoseconds per operation.
@inline(never)
func nanosecondsPerOperation(_ operations: Int, _ body: () -> Void) -> Double {
    let start = monotonicNanoseconds()
    body()
    let end = monotonicNanoseconds()
    return Double(end - start) / Double(operations)
}

/// Keeps a value alive and observable so the optimiser cannot remove the work producing it.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

/// Runs `sample` `plan.warmUps` times unmeasured, then `plan.runs` times.
func repeated(_ plan: RunPlan, _ sample: () -> Double) -> [Double] {
    for _ in 0..<plan.warmUps { _ = sample() }
    return (0..<plan.runs).map { _ in sample() }
}

/// Async version of ``repeated(_:_:)``.
func repeated(_ plan: RunPlan, _ sample: () async -> Double) async -> [Double] {
    for _ in 0..<plan.warmUps { _ = await sample() }
    var samples: [Double] = []
    for _ in 0..<plan.runs { samples.append(await sample()) }
    return samples
}

/// Measures `base` and `variant` alternately in each run and returns `variant / base` per run,
/// so noise from the shared machine hits both sides alike.
func pairedRatios(_ plan: RunPlan, base: () -> Double, variant: () -> Double) -> (ratios: [Double], base: [Double]) {
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

func formatNumber(_ value: Double) -> String {
    if value >= 1_000_000 { return String(format: "%.3g", value) }
    if value >= 100 { return String(Int(value.rounded())) }
    if value >= 10 { return String(format: "%.1f", value) }
    return String(format: "%.2f", value)
}

private func formatBytes(_ value: Double) -> String {
    String(format: "%.1f MiB", value / 1_048_576)
}

func printTable(_ measurements: [Measurement], baseline: [String: Double]? = nil) {
    var header = ["case", "median", "min", "max", "unit", "target", ""]
    if baseline != nil { header += ["before", "change"] }
    var rows = [header]
    for measurement in measurements {
        let isBytes = measurement.unit == .bytes
        func show(_ value: Double) -> String { isBytes ? formatBytes(value) : formatNumber(value) }
        var status = "shown"
        if let target = measurement.target { status = target.isMet(by: measurement.median) ? "met" : "MISSED" }
        var row: [String] = [
            measurement.name, show(measurement.median), show(measurement.min), show(measurement.max),
            isBytes ? "" : measurement.unit.rawValue, measurement.target.map { isBytes ? $0.text(formatBytes) : $0.text } ?? "", status,
        ]
        if let baseline {
            if let earlier = baseline[measurement.name], earlier > 0 {
                row += [show(earlier), String(format: "×%.2f", measurement.improvement(over: earlier))]
            } else {
                row += ["", "new"]
            }
        }
        rows.append(row)
    }
    let widths = header.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
    for (index, row) in rows.enumerated() {
        let line = row.enumerated().map { column, cell in
            column == 0 ? cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
                : String(repeating: " ", count: widths[column] - cell.count) + cell
        }
        print(line.joined(separator: "  "))
        if index == 0 { print(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")) }
    }
    if baseline != nil {
        print("\nchange: how many times better than before (×2.00 twice as good, ×0.50 half as good)")
    }
}

func printJSON(_ measurements: [Measurement], baseline: [String: Double]? = nil) {
    func number(_ value: Double) -> String {
        value.isFinite ? String(format: "%.4f", value) : "null"
    }
    let cases = measurements.map { measurement in
        var fields = """
            "name":"\(measurement.name)","value":\(number(measurement.median)),"unit":"\(measurement.unit.rawValue)",\
            "min":\(number(measurement.min)),"max":\(number(measurement.max)),"runs":\(measurement.samples.count)
            """
        if let earlier = baseline?[measurement.name], earlier > 0 {
            fields += ",\"before\":\(number(earlier)),\"change\":\(number(measurement.improvement(over: earlier)))"
        }
        return "{" + fields + "}"
    }
    print("{\"cases\":[\(cases.joined(separator: ","))]}")
}

/// The medians by case name in `path`, an earlier `--json` output.
func earlierMedians(_ path: String) throws -> [String: Double] {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any],
          let cases = root["cases"] as? [[String: Any]] else {
        throw ChildError("not the output of appcore-bench --json (no \"cases\" list)")
    }
    var medians: [String: Double] = [:]
    for entry in cases {
        if let name = entry["name"] as? String, let value = entry["value"] as? Double { medians[name] = value }
    }
    return medians
}
