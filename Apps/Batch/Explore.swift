import AppHost
import Console
import Foundation

/// `appcore-batch --explore`: explores the app to `depth` intents and prints the summary, or
/// the broken invariant with a script that reproduces it. Exits 0 when every invariant held,
/// 1 when one did not.
func explore(depth: Int, loginStyle: ConsoleLoginStyle, json: Bool) async -> Int32 {
    let outcome = await AppExplorer(loginStyle: loginStyle, depth: depth).run()
    if json {
        var object: [String: Any] = [
            "explored": [
                "states": outcome.statesVisited, "transitions": outcome.transitions, "depth": depth,
                "depthReached": outcome.depthReached,
                "seconds": Double(outcome.duration.components.seconds) + Double(outcome.duration.components.attoseconds) / 1e18,
            ] as [String: Any],
            "summary": outcome.summary,
        ]
        if let invariant = outcome.violatedInvariant {
            object["violation"] = ["invariant": invariant, "script": outcome.script]
        }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        print(String(decoding: data, as: UTF8.self))
    } else {
        print(outcome.summary)
        if let invariant = outcome.violatedInvariant {
            print("“\(invariant)” does not hold; this script reproduces it (appcore-batch FILE):")
            for line in outcome.script { print("  " + line) }
        }
    }
    return outcome.violatedInvariant == nil ? 0 : 1
}
