import Console
import Testing

// ConsoleSession's doc comment example, run here; DocumentationExampleTests finds it in this
// file, so change the two together.

@Test func aScriptedSessionRunsALine() async throws {
    let session = try await ConsoleSession.scripted()
    let result = await session.execute("counter.increment")
    print(result.output) // counter: 1
    #expect(result.output == "counter: 1")
}
