import Foundation
import StoreBenchmarks

extension Target {
    var text: String { text(formatNumber) }
}

func formatNumber(_ value: Double) -> String {
    if value >= 1_000_000 { return String(format: "%.3g", value) }
    if value >= 100 { return String(Int(value.rounded())) }
    if value >= 10 { return String(format: "%.1f", value) }
    return String(format: "%.2f", value)
}

private func formatBytes(_ value: Double) -> String {
    value < 1_048_576 ? String(format: "%.1f KiB", value / 1_024) : String(format: "%.1f MiB", value / 1_048_576)
}

func printTable(_ measurements: [CaseResult], baseline: [String: Double]? = nil) {
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
            column == 0
                ? cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
                : String(repeating: " ", count: widths[column] - cell.count) + cell
        }
        print(line.joined(separator: "  "))
        if index == 0 { print(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")) }
    }
    if baseline != nil {
        print("\nchange: how many times better than before (×2.00 twice as good, ×0.50 half as good)")
    }
}

func printJSON(_ measurements: [CaseResult], baseline: [String: Double]? = nil) {
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
        let cases = root["cases"] as? [[String: Any]]
    else {
        throw ChildError("not the output of appcore-bench --json (no \"cases\" list)")
    }
    var medians: [String: Double] = [:]
    for entry in cases {
        if let name = entry["name"] as? String, let value = entry["value"] as? Double { medians[name] = value }
    }
    return medians
}
