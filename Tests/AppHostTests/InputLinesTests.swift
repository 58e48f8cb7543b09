import AppHost
import Foundation
import TestSupport
import Testing

@Suite("Input lines")
struct InputLinesTests {
    /// The lines of a pipe that `text` was written to and then closed.
    func lines(of text: String) throws -> InputLines {
        let pipe = ChildProcesses.pipe()
        pipe.fileHandleForWriting.write(Data(text.utf8))
        try pipe.fileHandleForWriting.close()
        return InputLines(descriptor: pipe.fileHandleForReading.fileDescriptor)
    }

    @Test func aLineReadAheadIsSaidToBeReady() async throws {
        let lines = try lines(of: "one\ntwo\nthree\n")
        #expect(!lines.hasLineReady, "nothing is read before the first line is asked for")
        var iterator = lines.makeAsyncIterator()
        #expect(await iterator.next() == Array("one".utf8))
        // The reader thread reads the rest of the pipe ahead, and nobody takes it yet.
        #expect(await eventually { lines.hasLineReady })
        #expect(await iterator.next() == Array("two".utf8))
        #expect(await iterator.next() == Array("three".utf8))
        #expect(!lines.hasLineReady, "every line was handed out")
        #expect(await iterator.next() == nil)
        #expect(!lines.hasLineReady)
    }
}
