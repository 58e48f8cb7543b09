import Foundation
import Models
import Testing

// The Swift examples of Models' doc comments, built here and run where they make a claim;
// DocumentationExampleTests finds each of them in this file.

/// Defaulted's example (Modules/Models/Defaulted.swift).
struct Change: Codable {
    var cursor: Int
    @Defaulted<DefaultFalse> var replacesAll = false
}

@Suite("Doc comments' examples: Models")
struct ModelsDocCommentExampleTests {
    @Test func aDefaultedFieldIsReadWhenMissingAndLeftOutAtItsDefault() throws {
        let old = try JSONDecoder().decode(Change.self, from: Data(#"{"cursor":3}"#.utf8))
        #expect(old.cursor == 3 && old.replacesAll == false, "a document written before the field")
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(String(decoding: try encoder.encode(old), as: UTF8.self) == #"{"cursor":3}"#, "encoded as before")
        let all = Change(cursor: 4, replacesAll: true)
        #expect(String(decoding: try encoder.encode(all), as: UTF8.self) == #"{"cursor":4,"replacesAll":true}"#)
        #expect(try JSONDecoder().decode(Change.self, from: try encoder.encode(all)).replacesAll)
    }
}
