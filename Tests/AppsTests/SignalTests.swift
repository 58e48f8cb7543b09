import Foundation
import Testing

/// Signals end the shells the way quitting does: every answered line is kept, the database is
/// closed (no `-wal` or `-shm` left) and the exit status is 128 + the signal.
@Suite("Signals and closed pipes")
struct SignalTests {
    /// A running shell fed through a pipe that stays open, read until it has answered.
    final class Driven: @unchecked Sendable {
        let process = Process()
        let input = Pipe(), output = Pipe(), errors = Pipe()
        private var read = Data()

        init(_ name: String, _ arguments: [String], folder: String) throws {
            process.executableURL = try TwoProcessTests.executable(name)
            process.arguments = arguments
            process.environment = ["HOME": folder, "XDG_DATA_HOME": folder, "NO_COLOR": "1"]
            process.standardInput = input
            process.standardOutput = output
            process.standardError = errors
            try process.run()
        }

        func send(_ lines: [String]) {
            input.fileHandleForWriting.write(Data((lines.joined(separator: "\n") + "\n").utf8))
        }

        /// Reads standard output until `isDone` holds for what was read (or it ends).
        func read(until isDone: @escaping @Sendable (String) -> Bool) async throws -> String {
            try await onOwnThread { [self] in
                while !isDone(String(decoding: read, as: UTF8.self)) {
                    let chunk = output.fileHandleForReading.availableData
                    if chunk.isEmpty { break }
                    read += chunk
                }
                return String(decoding: read, as: UTF8.self)
            }
        }

        func end(with signal: Int32) async throws -> (status: Int32, errors: String) {
            kill(process.processIdentifier, signal)
            try await onOwnThread { [process] in process.waitUntilExit() }
            try? input.fileHandleForWriting.close()
            return (process.terminationStatus, String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
        }
    }

    static func leftovers(_ path: String) -> [String] {
        ["-wal", "-shm"].filter { FileManager.default.fileExists(atPath: path + $0) }
    }

    @Test(arguments: [SIGTERM, SIGINT, SIGHUP])
    func serveKeepsEveryAnsweredIntent(signal: Int32) async throws {
        let folder = TemporaryFolder("appcore-signal")
        try FileManager.default.createDirectory(atPath: folder.path, withIntermediateDirectories: true)
        let path = folder.path + "/app.sqlite"
        let answered = Int.random(in: 1...40)
        let serve = try Driven("appcore-serve", [path], folder: folder.path)
        serve.send(Array(repeating: #"{"increment":{}}"#, count: answered))
        _ = try await serve.read { $0.split(separator: "\n").count >= answered }
        let (status, errors) = try await serve.end(with: signal)
        #expect(status == 128 + signal, "standard error: \(errors)")
        #expect(Self.leftovers(path).isEmpty, "the database was closed")

        let again = try Driven("appcore-serve", [path], folder: folder.path)
        again.send([#"{"increment":{}}"#])
        let reply = try await again.read { $0.contains("\n") }
        #expect(reply.contains(#""count":\#(answered + 1)"#), "every answered increment was kept: \(reply)")
        _ = try await again.end(with: SIGTERM)
    }

    @Test func serveEndsLikeQuittingWhenItsReaderGoesAway() async throws {
        let folder = TemporaryFolder("appcore-pipe")
        try FileManager.default.createDirectory(atPath: folder.path, withIntermediateDirectories: true)
        let path = folder.path + "/app.sqlite"
        let serve = try Driven("appcore-serve", [path], folder: folder.path)
        serve.send([#"{"increment":{}}"#])
        _ = try await serve.read { $0.contains("\n") }
        try serve.output.fileHandleForReading.close()
        serve.send([#"{"increment":{}}"#, #"{"increment":{}}"#])
        try await onOwnThread { [serve] in serve.process.waitUntilExit() }
        #expect(serve.process.terminationReason == .exit && serve.process.terminationStatus == 141)
        #expect(Self.leftovers(path).isEmpty)
    }

    @Test func serveSaysInOneLineWhyItCannotOpen() async throws {
        let folder = TemporaryFolder("appcore-open")
        try FileManager.default.createDirectory(atPath: folder.path, withIntermediateDirectories: true)
        try Data("not a database, just text".utf8).write(to: URL(fileURLWithPath: folder.path + "/foreign.sqlite"))
        for path in [folder.path + "/missing/app.sqlite", folder.path + "/foreign.sqlite"] {
            let serve = try Driven("appcore-serve", [path], folder: folder.path)
            try serve.input.fileHandleForWriting.close()
            try await onOwnThread { [serve] in serve.process.waitUntilExit() }
            let said = String(decoding: serve.errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(serve.process.terminationStatus == 2)
            #expect(said.hasPrefix("appcore-serve: ") && said.split(separator: "\n").count == 1, "\(said)")
        }
    }
}
