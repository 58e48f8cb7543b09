import Foundation
import StateStore

/// This test binary re-run as a child process that runs only the test `filter` names, with
/// `environment` added; its standard output is collected as it comes.
public final class TestChild: Sendable {
    /// The child.
    public let process: Process
    private let output = Locked(Data())
    private let pipe = ChildProcesses.pipe()

    /// Starts the child, running the tests `filter` names.
    public init(running filter: String, environment: [String: String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        process.arguments = ["--testing-library", "swift-testing", "--filter", filter]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        self.process = process
        // Holds the child object until `waitUntilExit` removes the handler.
        pipe.fileHandleForReading.readabilityHandler = { [self] handle in
            let chunk = handle.availableData
            output.withLock { $0.append(chunk) }
        }
        try ChildProcesses.start(process)
    }

    /// The lines the child printed so far.
    public var lines: [Substring] {
        output.withLock { String(decoding: $0, as: UTF8.self) }.split(separator: "\n")
    }

    /// Waits (up to `timeout`) until the child printed a line satisfying `condition`.
    public func waitForLine(timeout: Duration = .seconds(30), where condition: ([Substring]) -> Bool) async {
        let deadline = ContinuousClock.now + timeout
        while !condition(lines), process.isRunning, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Waits until the child exits and stops collecting its output.
    public func waitUntilExit() {
        process.waitUntilExit()
        pipe.fileHandleForReading.readabilityHandler = nil
    }
}
