import AppHost
import Foundation
import Models
import Reducers
import StateStore
import Testing
import ViewModels

@testable import Console

/// A field added to a screen's snapshot reaches every front end, or one of these fails naming it:
/// `appcore-serve`'s replies (``ScreensUpdate``, ``NotesUpdate``), `expect` and the transcript.
@Suite("Every screen field reaches every front end")
struct ScreenFieldTests {
    /// The stored fields of `value`, by name.
    private static func fields(of value: Any) -> [String] {
        Mirror(reflecting: value).children.compactMap(\.label)
    }

    /// Screens signed out, and signed in with an open note: between them every field has a value
    /// that shows.
    private static func screens() async throws -> [ConsoleScreens] {
        let console = try await ConsoleSession.scripted()
        let signedOut = ConsoleScreens(console)
        for line in [
            "signup alice.liddell wonderland", "login.username alice.liddell", "login.password wonderland", "login.submit",
            "notes.add \"buy milk\nand bread\"", "counter.increment", "notes.search milk",
        ] {
            #expect(await console.execute(line).succeeded, "\(line)")
        }
        return [signedOut, ConsoleScreens(console)]
    }

    @Test func aNotesReplyCarriesEveryFieldOfTheNotesScreen() {
        let snapshot = Screens(AppFeature.State()).notes
        let missing = Set(Self.fields(of: snapshot)).subtracting(Self.fields(of: NotesUpdate(snapshot, since: nil)))
        #expect(missing.isEmpty, "NotesUpdate (appcore-serve's notes replies) lacks \(missing.sorted())")
    }

    @Test func everyScreenIsEncodedUpdatedCheckedAndRendered() async throws {
        let screens = try await Self.screens()[1]
        let encoded = try JSONSerialization.jsonObject(with: JSONEncoder().encode(screens.screens)) as? [String: Any]
        let update = try JSONSerialization.jsonObject(with: JSONEncoder().encode(ScreensUpdate(screens.screens, since: nil))) as? [String: Any]
        for screen in Screen.allCases {
            #expect(encoded?[screen.rawValue] != nil, "Screens' JSON lacks \(screen)")
            #expect(update?[screen.rawValue] != nil, "ScreensUpdate lacks \(screen)")
            #expect(screens.render(screen).hasPrefix("\(screen.rawValue):"), "the transcript does not render \(screen)")
            let names = Set(ConsoleScreens.propertyNames(of: screen))
            let missing = Set(Self.fields(of: screens.screens.snapshot(of: screen))).subtracting(names)
            #expect(missing.isEmpty, "expect cannot check \(screen) \(missing.sorted())")
        }
    }

    @Test func expectReadsEveryFieldAsTheScreensJSONHoldsIt() async throws {
        for base in try await Self.screens() {
            let json = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(base.screens)) as? [String: Any])
            for property in ConsoleScreens.properties {
                let fields = try #require(json[property.screen.rawValue] as? [String: Any])
                let expected: String =
                    switch fields[property.name] {
                    case nil, is NSNull: "nil"
                    case let list as [Any]: "\(list.count) items"
                    case let text as String: text
                    // A number or a truth value, as JSON writes it.
                    case let other?:
                        String(decoding: try JSONSerialization.data(withJSONObject: other, options: .fragmentsAllowed), as: UTF8.self)
                    }
                #expect(property.value(base) == expected, "\(property.screen.rawValue).\(property.name)")
            }
        }
    }

    /// Fields the transcript shows through another field.
    private static let shownThroughAnother: [String: String] = [
        "notes.isEmpty": "emptyMessage",
        "notes.count": "the rows' count in the header",
        "notes.selectedID": "the open note's row marked * and its open line",
        "notes.rowLimit": "a reader's page; the console pages by itself (view notes --all)",
        "profile.canAddPost": "a draft's row (publishing…) and the status",
        "notes.rows.id": "the row's short id, checked by the golden transcripts",
        "notes.rows.unsavedReason": "isUnsaved's NOT SAVED line",
    ]

    @Test func theTranscriptShowsEveryField() async throws {
        var shown: [String: Bool] = [:]
        for base in try await Self.screens() {
            let json = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(base.screens)) as? [String: Any])
            for screen in Screen.allCases {
                let before = try Self.rendered(json, screen, noteIDs: base.noteIDs)
                for child in Mirror(reflecting: base.screens.snapshot(of: screen)).children {
                    guard let name = child.label, let changed = Self.changed(child.value) else { continue }
                    let path = "\(screen.rawValue).\(name)"
                    guard Self.shownThroughAnother[path] == nil else { continue }
                    var other = json
                    var fields = try #require(other[screen.rawValue] as? [String: Any])
                    fields[name] = changed is NSNull ? nil : changed
                    other[screen.rawValue] = fields
                    let after = try Self.rendered(other, screen, noteIDs: base.noteIDs)
                    shown[path] = (shown[path] ?? false) || after != before
                }
            }
            // Each field of the first note row changed alone.
            let notes = try #require(json["notes"] as? [String: Any])
            guard let rows = notes["rows"] as? [[String: Any]], let first = base.screens.notes.rows.first else { continue }
            let before = try Self.rendered(json, .notes, noteIDs: base.noteIDs)
            for child in Mirror(reflecting: first).children {
                guard let name = child.label, let changed = Self.changed(child.value) else { continue }
                let path = "notes.rows.\(name)"
                guard Self.shownThroughAnother[path] == nil else { continue }
                var row = rows[0]
                row[name] = changed is NSNull ? nil : changed
                var other = json
                var fields = notes
                fields["rows"] = [row] + rows.dropFirst()
                other["notes"] = fields
                let after = try Self.rendered(other, .notes, noteIDs: base.noteIDs)
                shown[path] = (shown[path] ?? false) || after != before
            }
        }
        let hidden = shown.filter { !$0.value }.keys.sorted()
        #expect(hidden.isEmpty, "the transcript shows no change of \(hidden)")
        #expect(shown.count > 20, "too few fields were changed: \(shown.keys.sorted())")
    }

    /// Screen `screen` of the screens encoded as `json`, rendered whole.
    private static func rendered(_ json: [String: Any], _ screen: Screen, noteIDs: NoteIDs) throws -> String {
        let screens = try JSONDecoder().decode(Screens.self, from: JSONSerialization.data(withJSONObject: json))
        return ConsoleScreens(screens, noteIDs: noteIDs).render(screen, .all)
    }

    /// Another value for a field holding `value`, as JSON (`NSNull`: none); `nil` for a field
    /// that is not a plain value (rows, a status), which the golden transcripts cover.
    private static func changed(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional {
            if let wrapped = mirror.children.first?.value { return changed(wrapped) ?? NSNull() }
            // (A nil casts to every optional type: the type tells them apart.)
            if type(of: value) == String?.self { return "something else" }
            if type(of: value) == Note.ID?.self { return "00000000-0000-0000-0000-0000000000ab" }
            return nil
        }
        switch value {
        case let flag as Bool: return !flag
        case let number as Int: return number + 7
        case let text as String: return text + " changed"
        default: return nil
        }
    }
}
