import AppHost
import Foundation
import Testing

// The Swift examples of AppHost's doc comments (its symbol pages), built here and, where they make
// a claim, run; DocumentationExampleTests finds each of them in this file, so change a doc
// comment's example and its copy here together.

@Suite("Doc comments' examples: AppHost")
struct AppHostDocCommentExampleTests {
    @Test func aSignedOutUserIsToldToSignIn() async throws {
        let host = try await AppHost(storage: .inMemory(latency: .milliseconds(40)), loginStyle: .finiteStates)
        let outcome = await host.perform(.addNote(text: "milk"))
        if case .rejected(let reason) = outcome.status { print(reason) } // "You are not signed in. Sign in first."
        print(outcome.screens.notes.count)
        try await host.close()
        #expect(outcome.status == .rejected(reason: "You are not signed in. Sign in first."))
    }
}

// Only built: they read standard input, or catch the test process's signals.

func readingLines(handle: ([UInt8]) -> Void) async {
    for await line in InputLines() { handle(line) } // each line's bytes, without its line feed
}

func closingOnSignals(host: AppHost) {
    TerminationSignals.catching { signal in
        Task {
            try? await host.close()
            exit(128 + signal)
        }
    }
}
