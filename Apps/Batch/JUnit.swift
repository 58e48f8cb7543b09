import Console
import Foundation

/// The batch run as JUnit XML — what GitHub Actions, GitLab, Jenkins and Buildkite show: one
/// `<testcase>` per script (`classname` its folder, dots for slashes; `name` its file), with its
/// time, and for a failed script a `<failure>` naming each failed line as `file:line: command`.
struct JUnitReport {
    let reports: [ScriptRunner.Report]
    let elapsed: Duration

    var xml: String {
        let failures = reports.filter { !$0.passed }.count
        var xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <testsuites name="appcore-batch" tests="\(reports.count)" failures="\(failures)" errors="0" time="\(Batch.seconds(elapsed))">
              <testsuite name="appcore-batch" tests="\(reports.count)" failures="\(failures)" errors="0" skipped="0" time="\(Batch.seconds(elapsed))">

            """
        for report in reports {
            let url = URL(fileURLWithPath: report.name)
            let folder = url.deletingLastPathComponent().relativePath
            let classname = folder == "." || folder.isEmpty ? "scripts" : folder.split(separator: "/").joined(separator: ".")
            let attributes =
                "classname=\"\(Self.escaped(classname))\" name=\"\(Self.escaped(url.lastPathComponent))\" time=\"\(Batch.seconds(report.duration))\""
            let failed = report.failures
            guard let first = failed.first else {
                xml += "    <testcase \(attributes)/>\n"
                continue
            }
            let message = first.output.split(separator: "\n").last.map(String.init) ?? "failed"
            let details = failed.map { "\(report.name):\($0.line): \($0.command)\n\($0.output)" }.joined(separator: "\n\n")
            xml += "    <testcase \(attributes)>\n"
            xml +=
                "      <failure message=\"\(Self.escaped(message))\" type=\"\(first.output.contains("expected") ? "expectation" : "error")\">\(Self.escaped(details))</failure>\n"
            xml += "    </testcase>\n"
        }
        return xml + "  </testsuite>\n</testsuites>\n"
    }

    /// `text` with XML's special characters escaped, and the control characters XML 1.0 cannot
    /// hold at all shown as `\u{…}`.
    static func escaped(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&apos;"
            case "\n", "\t", "\r": escaped.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || (0xFFFE...0xFFFF).contains(scalar.value) {
                    escaped += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    escaped.unicodeScalars.append(scalar)
                }
            }
        }
        return escaped
    }
}
