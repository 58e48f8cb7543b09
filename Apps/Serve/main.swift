import AppHost
import Console
import Foundation

// appcore-serve: a front end in one file. One JSON intent per line in, one JSON outcome per
// line out, holding only what changed since the line before (the first, every screen):
//   echo '{"increment":{}}' | appcore-serve --db app.sqlite
// Each reply comes after the commit that keeps its intent. It ends as quitting does on end of
// input, SIGTERM, SIGINT or SIGHUP (exit 128 + signal), and when its reader goes away (141): the
// host is closed, so everything it answered is kept. Console gives it the shells' command line.
struct ServeOptions: ShellSettings {
    var databasePath: String?
    var readOnly = false
    var loginStyle: ConsoleLoginStyle?
    var live = true
    var inMemory = false
    var durability = Durability.processCrash
    var printsSchema = false
}

let commandLine = ShellCommandLine<ServeOptions>(
    tool: "appcore-serve",
    synopsis: ["[--db PATH | --in-memory] [options]", "[options] PATH"],
    options: ShellOption.shared + [
        .flag("--in-memory", "no database: nothing is kept after quitting") { $0.inMemory = true },
        .durability { $0.durability = $1 },
        .flag("--schema", "print the protocol's JSON Schema (IntentLine, ReplyLine) and stop") { $0.printsSchema = true },
    ],
    notes: [
        "Reads one JSON intent per line ({\"addNote\":{\"text\":\"milk\"}}) and answers each with one JSON outcome.",
        "Speaks protocol \(ServeProtocol.version): {\"hello\":{\"protocol\":\"\(ServeProtocol.version)\"}} is answered with the versions,",
        "or an error for a client of another major version.",
        "Without --db or PATH the database is appcore.sqlite in the user's data directory (said on standard error).",
        "Exits 0 at the end of input, 128 + N on signal N, 141 when its reader went away, 1 when standard output",
        "cannot be written, 2 on bad usage or a database that cannot be opened or closed.",
    ],
    version: "\(AppCoreVersion.current) (protocol \(ServeProtocol.version))"
)
let options = commandLine.settings(from: CommandLine.arguments.dropFirst(), into: ServeOptions()) { options, path in
    guard options.databasePath == nil else { return "one database only (got \(path) after \(options.databasePath ?? ""))" }
    options.databasePath = path
    return nil
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("appcore-serve: \(message)\n".utf8))
    ProcessExit.exit(2)
}

// A reply is written whole or not at all (a full disk leaves no torn line); replies to lines
// that were already waiting go out together, in one write.
let output = StandardOutput()

func end(_ host: AppHost, status: Int32) async -> Never {
    var failure: (any Error)?
    do { try await host.close(timeout: ConsoleSession.endingTime) } catch { failure = error }
    output.flush() // replies held to go with the next, once no intent is performed after them
    if let failure { fail("\(failure)") }
    ProcessExit.exit(status)
}

if options.printsSchema {
    do { print(try ServeProtocol.schema(), terminator: "") } catch { fail("\(error)") }
    ProcessExit.exit(0)
}
if options.inMemory, let path = options.databasePath { fail("--in-memory keeps no database; leave out \(path)") }
let storage: AppHost.Storage
if options.inMemory {
    storage = .inMemory()
} else if let path = options.databasePath {
    storage = .database(path: path)
} else {
    let path: String
    do { path = try DataDirectory.defaultDatabase } catch { fail("\(error)") }
    FileHandle.standardError.write(Data("appcore-serve: database \(path) (--db PATH picks another, --in-memory keeps nothing)\n".utf8))
    storage = .database(path: path)
}
// No intent undoes, so no history is recorded.
let hostOptions = AppHost.Options(history: nil, durability: options.durability, readOnly: options.readOnly)
let input = InputLines() // read on a thread of its own, never blocking a task
let host: AppHost
do {
    // Given up when the input ends and a stuck database keeps it from opening.
    host = try await ShellOpening.host(whileReading: input) { try await AppHost(storage: storage, loginStyle: options.loginStyle, options: hostOptions) }
} catch {
    fail("\(error)")
}
TerminationSignals.catching { signal in Task { await end(host, status: 128 + signal) } }
/// `value` as one line of JSON.
func encoded(_ value: some Encodable) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(value), as: UTF8.self)
}

/// Answers intents until the input ends, off the main actor (nothing here needs it).
func serve(_ host: AppHost, _ input: InputLines) async -> Never {
    var shown: Screens? // what the reader holds: replies carry what changed since
    for await line in input {
        if line.isEmpty { continue }
        let reply: String
        do {
            switch try ServeProtocol.Line(jsonLine: line) { // never echoes the line: it may hold a password
            case .hello(let hello):
                reply = try encoded(["hello": try ServeProtocol.reply(to: hello).get()])
            case .intent(let intent):
                // Returns once everything the intent started has finished and is kept: real work (a
                // password hash, a disk shared with other processes) that a loaded machine can slow
                // down, so given the shells' minute rather than the host's 10 s.
                // Measured against what the reader holds: an edit is based on the version it was sent.
                let outcome = await host.perform(intent, timeout: ConsoleSession.liveTimeout, since: shown)
                reply = try outcome.update(since: shown).jsonLine() // sized by the change, not by the notes
                shown = outcome.screens
            }
        } catch {
            reply = (try? encoded(["error": "\(error)"])) ?? ""
        }
        // Written now, unless the next line is already waiting: then with its reply (a reader
        // that waits for each reply before it sends the next line gets it at once).
        guard output.write(reply + "\n", moreFollows: input.hasLineReady) else { break }
        if let lost = host.storageLost {
            // Nothing more can be kept: answering further intents would acknowledge what is lost.
            output.flush()
            FileHandle.standardError.write(Data("appcore-serve: \(lost)\n".utf8))
            await end(host, status: 1)
        }
    }
    output.flush()
    switch output.failure {
    case nil: await end(host, status: 0)
    case .readerGone?: await end(host, status: 141) // as SIGPIPE would, quietly
    case let failure?:
        FileHandle.standardError.write(Data("appcore-serve: \(failure)\n".utf8))
        await end(host, status: 1)
    }
}
await serve(host, input)
