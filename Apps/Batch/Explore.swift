import AppExploration
import AppHost
import Console
import Foundation

/// `appcore-batch --explore`: explores the app to `depth` intents and prints the summary, or
/// the broken invariant with a script that reproduces it. Exits 0 when every invariant held,
/// 1 when one did not.
func explore(depth: Int, loginStyle: ConsoleLoginStyle, json: Bool) async -> Int32 {
    let outcome = await AppExplorer(loginStyle: loginStyle, depth: depth).run()
    if json {
        struct Explored: Encodable { let states: Int; let transitions: Int; let depth: Int; let depthReached: Int; let seconds: Double }
        struct Violation: Encodable { let invariant: String; let script: [String] }
        struct Report: Encodable { let explored: Explored; let summary: String; let violation: Violation? }
        let report = Report(
            explored: Explored(
                states: outcome.statesVisited, transitions: outcome.transitions, depth: depth,
                depthReached: outcome.depthReached, seconds: Double(Batch.seconds(outcome.duration)) ?? 0),
            summary: outcome.summary,
            violation: outcome.violatedInvariant.map { Violation(invariant: $0, script: outcome.script) })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        standardOutput.write(((try? encoder.encode(report)).map { String(decoding: $0, as: UTF8.self) } ?? "{}") + "\n")
    } else {
        standardOutput.write(outcome.summary + "\n")
        if let invariant = outcome.violatedInvariant {
            standardOutput.write("“\(invariant)” does not hold; this script reproduces it (appcore-batch FILE):\n")
            standardOutput.write(outcome.script.map { "  " + $0 + "\n" }.joined())
        }
    }
    return outcome.violatedInvariant == nil ? 0 : 1
}
