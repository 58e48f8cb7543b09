import AppHost
import Foundation

// appcore-serve: a front end in one file. One JSON intent per line in, one JSON outcome per
// line out:  echo '{"increment":{}}' | appcore-serve [database.sqlite]
let storage: AppHost.Storage = CommandLine.arguments.dropFirst().first.map { .database(path: $0) } ?? .inMemory()
let host = try await AppHost(storage: storage)
let encoder = JSONEncoder()
encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
while let line = readLine() {
    if line.isEmpty { continue }
    let reply: Data
    do {
        let intent = try JSONDecoder().decode(Intent.self, from: Data(line.utf8))
        let outcome = await host.perform(intent)   // returns once everything the intent started has finished
        reply = try encoder.encode(outcome)
    } catch {
        reply = try encoder.encode(["error": "not an intent: \(line)"])
    }
    FileHandle.standardOutput.write(reply + Data("\n".utf8))
}
try await host.close()
