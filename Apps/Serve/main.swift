import AppHost
import Foundation

// appcore-serve: a front end in one file. One JSON intent per line in, one JSON outcome per
// line out, holding only what changed since the line before (the first, every screen):
//   echo '{"increment":{}}' | appcore-serve [database.sqlite]
// It ends as quitting does on end of input, SIGTERM, SIGINT or SIGHUP (exit 128 + signal), and
// when its reader goes away (141): the host is closed, so everything it answered is kept.
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("appcore-serve: \(message)\n".utf8))
    exit(2)
}

func end(_ host: AppHost, status: Int32) async -> Never {
    do { try await host.close() } catch { fail("\(error)") }
    exit(status)
}

let storage: AppHost.Storage = CommandLine.arguments.dropFirst().first.map { .database(path: $0) } ?? .inMemory()
let host: AppHost
do { host = try await AppHost(storage: storage) } catch { fail("\(error)") }
TerminationSignals.catching { signal in Task { await end(host, status: 128 + signal) } }
let encoder = JSONEncoder()
encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
var shown: Screens? // what the reader holds: replies carry what changed since
for await line in InputLines() { // read on a thread of its own, never blocking a task
    if line.isEmpty { continue }
    let reply: Data
    do {
        let intent = try Intent(jsonLine: line) // never echoes the line: it may hold a password
        let outcome = await host.perform(intent) // returns once everything the intent started has finished
        reply = try encoder.encode(outcome.update(since: shown)) // sized by the change, not by the notes
        shown = outcome.screens
    } catch {
        reply = (try? encoder.encode(["error": "\(error)"])) ?? Data()
    }
    do { try FileHandle.standardOutput.write(contentsOf: reply + Data("\n".utf8)) } catch { await end(host, status: 141) }
}
await end(host, status: 0)
