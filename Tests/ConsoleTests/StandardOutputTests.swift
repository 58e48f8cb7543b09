import Console
import Foundation
import TestSupport
import Testing

@Suite("Standard output")
struct StandardOutputTests {
    /// A file to write to, its descriptor, and what it holds so far.
    final class Target: Sendable {
        let folder = TemporaryFolder("appcore-output")
        let path: String
        let descriptor: Int32

        init() throws {
            path = folder.file("out.txt")
            descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            try #require(descriptor >= 0)
        }

        deinit { close(descriptor) }

        var text: String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
    }

    /// Holds for an hour: what a test sees held is not written by the deadline meanwhile, however
    /// slow the machine.
    static let longHold: Duration = .seconds(3_600)

    @Test func heldPiecesGoOutWithTheNextWriteInTheirOrder() throws {
        let target = try Target()
        let output = StandardOutput(descriptor: target.descriptor, holdTime: Self.longHold)
        #expect(output.write("one\n", moreFollows: true))
        #expect(output.write("two\n", moreFollows: true))
        #expect(target.text == "", "held, not written")
        #expect(output.write("three\n", moreFollows: false))
        #expect(target.text == "one\ntwo\nthree\n")
        #expect(output.write("four\n", moreFollows: true))
        #expect(output.write("five\n"), "a plain write takes what is held along")
        #expect(target.text == "one\ntwo\nthree\nfour\nfive\n")
    }

    @Test func aHeldPieceGoesOutAfterTheHoldTimeThoughNothingFollows() async throws {
        let target = try Target()
        let output = StandardOutput(descriptor: target.descriptor, holdTime: .milliseconds(5))
        output.write("one\n", moreFollows: true)
        output.write("two\n", moreFollows: true)
        // The work answering the next line runs long: what is held does not wait for it.
        #expect(await eventually { target.text == "one\ntwo\n" })
        output.write("three\n", moreFollows: true)
        #expect(await eventually { target.text == "one\ntwo\nthree\n" }, "a new hold, a new deadline")
    }

    @Test func flushWritesWhatIsHeldAndNothingTwice() throws {
        let target = try Target()
        let output = StandardOutput(descriptor: target.descriptor, holdTime: Self.longHold)
        output.write("held\n", moreFollows: true)
        #expect(output.flush())
        #expect(output.flush())
        #expect(target.text == "held\n")
    }

    @Test func holdingStopsAtTheLimit() throws {
        let target = try Target()
        let output = StandardOutput(descriptor: target.descriptor, holdTime: Self.longHold)
        let line = String(repeating: "x", count: 1023) + "\n"
        let lines = StandardOutput.holdLimit / line.utf8.count
        for _ in 1..<lines { output.write(line, moreFollows: true) }
        #expect(target.text.isEmpty)
        output.write(line, moreFollows: true)
        #expect(target.text.utf8.count == lines * line.utf8.count, "written once the limit is held")
    }

    @Test func aFailedWriteSaysSoAndHoldsNothingMore() throws {
        let target = try Target()
        let output = StandardOutput(descriptor: -1, holdTime: Self.longHold)
        output.write("held\n", moreFollows: true)
        #expect(!output.flush())
        guard case .cannotWrite? = output.failure else {
            Issue.record("expected cannotWrite, got \(String(describing: output.failure))")
            return
        }
        #expect(!output.write("more\n", moreFollows: true))
        #expect(target.text.isEmpty)
    }
}
