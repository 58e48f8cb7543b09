import StateStore
import StoreBenchmarks

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// appcore-bench: medians of repeated runs of AppCore's performance cases.
//
//   swift run -c release appcore-bench                 table
//   swift run -c release appcore-bench --json          one JSON object
//   swift run -c release appcore-bench --filter fan    only cases whose name contains "fan"
//   swift run -c release appcore-bench --quick         fewer, shorter runs (a smoke test)
//   swift run -c release appcore-bench --compare F     each case's ratio to an earlier --json file

if CommandLine.arguments.dropFirst().first == "--scale-child" {
    exit(await runScaleChild(Array(CommandLine.arguments.dropFirst(2))))
}

var plan = RunPlan()
var json = false
var filters: [String] = []
var baseline: [String: Double]?
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--json":
        json = true
    case "--quick":
        plan = RunPlan(warmUps: 1, runs: 3, scale: 0.05)
    case "--runs":
        guard let value = arguments.next(), let runs = Int(value), runs > 0 else {
            StandardStream.error.write("appcore-bench: --runs needs a positive number\n")
            exit(2)
        }
        plan.runs = runs
    case "--filter":
        guard let value = arguments.next() else {
            StandardStream.error.write("appcore-bench: --filter needs a case name (or part of one)\n")
            exit(2)
        }
        filters.append(value)
    case "--compare":
        guard let path = arguments.next() else {
            StandardStream.error.write("appcore-bench: --compare needs the path of an earlier --json output\n")
            exit(2)
        }
        do {
            baseline = try earlierMedians(path)
        } catch {
            StandardStream.error.write("appcore-bench: --compare \(path): \(error)\n")
            exit(2)
        }
    case "--help", "-h":
        print(
            """
            usage: appcore-bench [--json] [--quick] [--runs N] [--filter NAME]... [--compare FILE]
            Prints the median, min and max of N runs (default 7, after a warm-up) of each case.
            --compare FILE adds each case's median in FILE (an earlier --json output) and the
            change, as a factor where more than 1 is better.
            """)
        exit(0)
    default:
        StandardStream.error.write("appcore-bench: unknown argument '\(argument)' (try --help)\n")
        exit(2)
    }
}

let chosen = filters
let selected: @Sendable (String) -> Bool = { name in chosen.isEmpty || chosen.contains { name.contains($0) } }

#if DEBUG
StandardStream.error.write("appcore-bench: this is a debug build; measure with `swift run -c release appcore-bench`\n")
#endif

var measurements = await storeBenchmarks(plan, selected: selected)
measurements += await persistenceBenchmarks(plan, selected: selected)
measurements += await consoleBenchmarks(plan, selected: selected)
measurements += await frontEndBenchmarks(plan, selected: selected)
measurements += await scaleBenchmarks(plan, selected: selected)
measurements += memoryBenchmarks(plan, selected: selected)

if json {
    printJSON(measurements, baseline: baseline)
} else {
    printTable(measurements, baseline: baseline)
}
