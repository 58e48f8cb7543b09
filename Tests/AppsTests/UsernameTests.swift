import Foundation
import TestSupport
import Testing

/// One username rule on both backends: a name typed composed or decomposed, in capitals or in
/// fullwidth letters names one account, and look-alike or invisible variants are refused.
@Suite("Usernames on both backends")
struct UsernameTests {
    @Test(arguments: [["--in-memory"], ["--db", "app.sqlite"]])
    func variantsOfANameAreTakenOrRefusedAlike(arguments: [String]) async throws {
        let (folder, _) = try SignalTests.databaseFolder("appcore-usernames")
        func signUp(_ escaped: String) -> String { #"{"signUp":{"username":"\#(escaped)","password":"wonderland"}}"# }
        let lines = [
            signUp("jos\\u00e9.garcia"), signUp("jose\\u0301.garcia"), signUp("JOSE\\u0301.GARCIA"),
            signUp("alice.liddell"), signUp("\\uff41\\uff4c\\uff49\\uff43\\uff45.liddell"),
            signUp("\\u0430lice.liddell"), signUp(" alice.liddell"), signUp("alice.\\u200dliddell"), signUp("alice.\\u00adliddell"),
            signUp("\\u202ealice.liddell"), signUp("alice.\\u0000liddell"), signUp("alice.\\tliddell"),
        ]
        let run = try await SharedFileTests.serve(arguments: arguments, lines: lines, folder: folder.path)
        let replies = run.output.split(separator: "\n").map(String.init)
        try #require(replies.count == lines.count, "\(run.errors)")
        let statuses = replies.map { reply -> String in
            let object = (try? JSONSerialization.jsonObject(with: Data(reply.utf8))) as? [String: Any]
            return ((object?["status"] as? [String: Any])?.keys.first) ?? "?"
        }
        #expect(statuses[0] == "completed" && statuses[3] == "completed", "\(replies)")
        for taken in [1, 2, 4] {
            #expect(replies[taken].contains("is taken"), "line \(taken + 1): \(replies[taken])")
        }
        for refused in 5..<lines.count {
            #expect(statuses[refused] != "completed", "line \(refused + 1) was accepted: \(replies[refused])")
            #expect(replies[refused].contains("A username cannot"), "line \(refused + 1): \(replies[refused])")
        }
    }
}
