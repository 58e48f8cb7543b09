import AppEnvironment
import Foundation
import Models
import Reducers
import StateStore
import TestSupport
import Testing

@testable import Persistence

/// The journal's compact encoding: every value the app journals comes back equal, damaged
/// documents are errors (never crashes), and journals written in JSON before it still restore.
@Suite("Compact coding")
struct CompactCodingTests {
    let folder = TemporaryFolder()

    struct Mixed: Codable, Equatable {
        indirect enum Kind: Codable, Equatable {
            case plain
            case carrying(id: Int, name: String?)
            case nested(Kind?)
        }

        var integers: [Int] = [0, 1, -1, 127, 128, -129, .max, .min]
        var unsigned: [UInt64] = [0, 300, .max]
        var small: [Int8] = [.min, -1, 0, .max]
        var doubles: [Double] = [0, -0.5, 1e300, .infinity, -.infinity, .leastNonzeroMagnitude]
        var float: Float = 3.25
        var text = "naïve \u{0} \"quoted\" 🧪\n"
        var empty = ""
        var missing: String? = nil
        var flags = [true, false]
        var kinds: [Kind] = [.plain, .carrying(id: 7, name: nil), .carrying(id: -7, name: "x"), .nested(.nested(.plain)), .nested(nil)]
        var byName: [String: Int] = ["a": 1, "b": 2]
        var byNumber: [Int: String] = [3: "three", -4: "minus four"]
        var date = Date(timeIntervalSince1970: 1_800_000_000.25)
        var id = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
        var bytes = Data([0, 1, 2, 255])
    }

    @Test func storedNotesAreWrittenByReferenceAndReadBackAsStoredNowOrLeftOut() throws {
        let stored = Note(id: Note.ID(UUID(sequence: 1)), text: "milk, as stored", createdAt: Date(timeIntervalSince1970: 5), version: 3)
        let gone = Note(id: Note.ID(UUID(sequence: 2)), text: "deleted since", createdAt: Date(timeIntervalSince1970: 4), version: 2)
        let unstored = Note(id: Note.ID(UUID(sequence: 3)), text: "typed, not stored", createdAt: Date(timeIntervalSince1970: 6))
        let page = NotePage(notes: [unstored, stored, gone], total: 3)
        let byReference = try CompactCoding.encode(page, userInfo: [.storedNotesByReference: true])
        #expect(!String(decoding: byReference, as: UTF8.self).contains("as stored"), "a stored note's text is not written")
        #expect(String(decoding: byReference, as: UTF8.self).contains("typed, not stored"), "a note never stored is written whole")
        let changed = Note(id: stored.id, text: "milk, changed since", createdAt: stored.createdAt, version: 4)
        let table = StoredNotes { id, _ in id == stored.id ? changed : nil }
        let read = try CompactCoding.decode(NotePage.self, from: byReference, userInfo: [.storedNotes: table])
        #expect(read.notes == [unstored, changed], "read back as stored now; a note gone is left out")
        // Written whole (no reference asked for), or read with no table: as ever.
        #expect(try CompactCoding.decode(NotePage.self, from: CompactCoding.encode(page)) == page)
        #expect(try CompactCoding.decode(NotePage.self, from: byReference).notes == [unstored])
    }

    @Test func everyKindOfValueComesBackEqual() throws {
        let value = Mixed()
        let bytes = try CompactCoding.encode(value)
        #expect(bytes.first == CompactCoding.magic)
        let decoded = try CompactCoding.decode(Mixed.self, from: bytes)
        #expect(decoded == value)
        #expect(decoded.doubles[0].sign == .plus)
    }

    @Test func theAppsStateAndActionsComeBackEqualAndSmallerThanJSON() throws {
        var state = AppFeature.State(loginStyle: .middleware)
        state.counter.count = 42
        state.user = SignedIn.State(
            session: AuthSession(user: User(id: User.ID(UUID(sequence: 9)), username: "alice.liddell"), token: AccessToken("")), loginStyle: .middleware)
        state.user?.notes.items = IdentifiedArray(
            uniqueElements: (1...200).map {
                Notes.Item(
                    note: Note(id: Note.ID(UUID(sequence: UInt64($0))), text: "note \($0): milk, eggs", createdAt: Date(timeIntervalSince1970: Double($0))),
                    save: $0 % 3 == 0 ? .failed(.network(reason: "offline")) : .saved)
            })
        state.user?.notes.selectedID = Note.ID(UUID(sequence: 3))
        let stateBytes = try CompactCoding.encode(state)
        #expect(try CompactCoding.decode(AppFeature.State.self, from: stateBytes) == state)
        #expect(stateBytes.count < (try JSONEncoder().encode(state)).count)

        let actions: [AppFeature.Action] = [
            .counter(.incrementTapped),
            .login(.usernameChanged("alice.liddell")),
            .login(.authenticationResponse(.failure(.invalidCredentials))),
            .notes(.edited(Note.ID(UUID(sequence: 9)), "oat milk")),
            .notes(.saveResponse(Note.ID(UUID(sequence: 9)), revision: 2, .failure(.notFound(.note, id: "9")))),
            .notes(.selected(nil)),
            .notes(.searchQueryChanged("")),
        ]
        #expect(try CompactCoding.decode([AppFeature.Action].self, from: CompactCoding.encode(actions)) == actions)
    }

    @Test func noteChangesReadAsTheyWereWrittenBeforeTheyCouldReplaceAList() throws {
        let note = Note(id: Note.ID(UUID(sequence: 1)), text: "milk", createdAt: Date(timeIntervalSince1970: 1_800_000_000))
        let change = NoteChanges(changed: [note], removed: [Note.ID(UUID(sequence: 2))], cursor: NotesCursor(position: 7))
        let whole = NoteChanges(changed: [note], cursor: NotesCursor(position: 9), replacesAll: true)
        // As an earlier version wrote a change (no such key): still a change.
        struct Earlier: Encodable {
            let changed: [Note]
            let removed: [Note.ID]
            let cursor: NotesCursor
        }
        let earlier = Earlier(changed: change.changed, removed: change.removed, cursor: change.cursor)
        #expect(try CompactCoding.decode(NoteChanges.self, from: CompactCoding.encode(earlier)) == change)
        #expect(try JSONDecoder().decode(NoteChanges.self, from: JSONEncoder().encode(earlier)) == change)
        // A change encodes as it always did; a whole list says so.
        #expect(try CompactCoding.encode(change) == CompactCoding.encode(earlier))
        #expect(try CompactCoding.decode(NoteChanges.self, from: CompactCoding.encode(whole)) == whole)
        #expect(try JSONDecoder().decode(NoteChanges.self, from: JSONEncoder().encode(whole)) == whole)
    }

    @Test func aDamagedDocumentIsAnErrorNotACrash() throws {
        let bytes = try CompactCoding.encode(Mixed())
        // Containers read their entries where they lie, so a cut anywhere must still be found.
        for length in 0..<bytes.count {
            #expect(throws: DecodingError.self) { try CompactCoding.decode(Mixed.self, from: Array(bytes.prefix(length))) }
        }
        #expect(throws: DecodingError.self) { try CompactCoding.decode(Mixed.self, from: bytes + [0]) }
        var newer = bytes
        newer[1] = CompactCoding.version + 1
        #expect(throws: DecodingError.self) { try CompactCoding.decode(Mixed.self, from: newer) }
        var garbled = bytes
        garbled[2] = 0xEE
        #expect(throws: DecodingError.self) { try CompactCoding.decode(Mixed.self, from: garbled) }
        #expect(throws: DecodingError.self) { try CompactCoding.decode(Int.self, from: CompactCoding.encode("text")) }
        #expect(throws: DecodingError.self) { try CompactCoding.decode(Int8.self, from: CompactCoding.encode(300)) }
    }

    @Test func anErrorSaysWhereInTheDocumentItIs() throws {
        struct Text: Codable { var value: String }
        struct Number: Codable { var value: Int }
        struct Texts: Codable { var items: [Text], name: String }
        struct Numbers: Codable { var items: [Number], name: String }
        let bytes = try CompactCoding.encode(Texts(items: [Text(value: "a")], name: "n"))
        do {
            _ = try CompactCoding.decode(Numbers.self, from: bytes)
            Issue.record("a text was decoded as a number")
        } catch let DecodingError.dataCorrupted(context) {
            #expect(context.codingPath.map(\.stringValue) == ["items", "value"])
        }
    }

    @Test func aJournalWrittenInJSONStillRestores() throws {
        let path = folder.file("legacy.sqlite")
        let database = try Database(path: path, migrations: AppSchema.migrations)
        var snapshot = AppFeature.State()
        snapshot.counter.count = 5
        let actions: [AppFeature.Action] = [.counter(.incrementTapped), .counter(.incrementTapped), .login(.usernameChanged("bob.builder"))]
        // What a journal wrote before the compact format: a JSON snapshot and a JSON batch.
        try database.write { db throws(DatabaseError) in
            try db.execute(
                "INSERT INTO snapshots (stream, sequence, state) VALUES ('app', 0, ?)",
                [.blob(Array(try! JSONEncoder().encode(snapshot)))])
            try db.execute(
                "INSERT INTO journal (stream, first_sequence, count, actions) VALUES ('app', 1, 3, ?)",
                [.blob(Array(try! JSONEncoder().encode(actions)))])
        }
        let journal = try Journal<AppFeature.State, AppFeature.Action>(database: database)
        let (restored, replayed) = try journal.restore(from: AppFeature.State(), using: AppFeature(environment: .noop()))
        #expect(replayed == 3)
        #expect(restored.counter.count == 7)
        #expect(restored.loginStatus.username == "bob.builder")

        // What it appends now is compact, and both kinds restore together.
        journal.append(.counter(.decrementTapped))
        _ = try journal.flush()
        let blobs = try database.read { db throws(DatabaseError) in
            try db.query("SELECT actions FROM journal WHERE stream = 'app' ORDER BY first_sequence") { $0.blob(0) }
        }
        #expect(blobs.count == 2)
        #expect(blobs.last.map(CompactCoding.isCompact) == true)
        #expect(try journal.restore(from: AppFeature.State(), using: AppFeature(environment: .noop())).state.counter.count == 6)
    }
}

/// A value written through every container and every typed method a hand-written `Codable`
/// conformance may call: a feature's own encoding must come back as it went in.
private struct EveryContainer: Codable, Equatable {
    enum Key: String, CodingKey { case nothing, typed, list, inner, extra }
    enum Typed: String, CodingKey { case bool, string, double, float, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64 }

    var bool = true, string = "s", double = -1.5, float: Float = 2.5, int = -1, int8: Int8 = -8, int16: Int16 = -16
    var int32: Int32 = -32, int64: Int64 = .min, uint: UInt = 1, uint8: UInt8 = 8, uint16: UInt16 = 16, uint32: UInt32 = 32
    var uint64: UInt64 = .max
    var innerValue = 7
    var superValue: Int16 = 5
    var extraValue: UInt32 = 9

    init() {}

    func encode(to encoder: any Encoder) throws {
        var keyed = encoder.container(keyedBy: Key.self)
        try keyed.encodeNil(forKey: .nothing)
        var typed = keyed.nestedContainer(keyedBy: Typed.self, forKey: .typed)
        try typed.encode(bool, forKey: .bool)
        try typed.encode(string, forKey: .string)
        try typed.encode(double, forKey: .double)
        try typed.encode(float, forKey: .float)
        try typed.encode(int, forKey: .int)
        try typed.encode(int8, forKey: .int8)
        try typed.encode(int16, forKey: .int16)
        try typed.encode(int32, forKey: .int32)
        try typed.encode(int64, forKey: .int64)
        try typed.encode(uint, forKey: .uint)
        try typed.encode(uint8, forKey: .uint8)
        try typed.encode(uint16, forKey: .uint16)
        try typed.encode(uint32, forKey: .uint32)
        try typed.encode(uint64, forKey: .uint64)
        var list = keyed.nestedUnkeyedContainer(forKey: .list)
        try list.encodeNil()
        try list.encode(bool)
        try list.encode(string)
        try list.encode(double)
        try list.encode(float)
        try list.encode(int)
        try list.encode(int8)
        try list.encode(int16)
        try list.encode(int32)
        try list.encode(int64)
        try list.encode(uint)
        try list.encode(uint8)
        try list.encode(uint16)
        try list.encode(uint32)
        try list.encode(uint64)
        var inner = list.nestedContainer(keyedBy: Key.self)
        try inner.encode(innerValue, forKey: .inner)
        var innerList = list.nestedUnkeyedContainer()
        try innerList.encode(innerValue)
        var single = keyed.superEncoder().singleValueContainer()
        try single.encode(superValue)
        var extra = keyed.superEncoder(forKey: .extra).singleValueContainer()
        try extra.encode(extraValue)
    }

    init(from decoder: any Decoder) throws {
        let keyed = try decoder.container(keyedBy: Key.self)
        guard try keyed.decodeNil(forKey: .nothing) else { throw CocoaError(.coderReadCorrupt) }
        let typed = try keyed.nestedContainer(keyedBy: Typed.self, forKey: .typed)
        bool = try typed.decode(Bool.self, forKey: .bool)
        string = try typed.decode(String.self, forKey: .string)
        double = try typed.decode(Double.self, forKey: .double)
        float = try typed.decode(Float.self, forKey: .float)
        int = try typed.decode(Int.self, forKey: .int)
        int8 = try typed.decode(Int8.self, forKey: .int8)
        int16 = try typed.decode(Int16.self, forKey: .int16)
        int32 = try typed.decode(Int32.self, forKey: .int32)
        int64 = try typed.decode(Int64.self, forKey: .int64)
        uint = try typed.decode(UInt.self, forKey: .uint)
        uint8 = try typed.decode(UInt8.self, forKey: .uint8)
        uint16 = try typed.decode(UInt16.self, forKey: .uint16)
        uint32 = try typed.decode(UInt32.self, forKey: .uint32)
        uint64 = try typed.decode(UInt64.self, forKey: .uint64)
        var list = try keyed.nestedUnkeyedContainer(forKey: .list)
        guard try list.decodeNil() else { throw CocoaError(.coderReadCorrupt) }
        // Each element must be what the encoder wrote, or the value would not come back equal.
        guard try list.decode(Bool.self) == bool, try list.decode(String.self) == string, try list.decode(Double.self) == double,
            try list.decode(Float.self) == float, try list.decode(Int.self) == int, try list.decode(Int8.self) == int8,
            try list.decode(Int16.self) == int16, try list.decode(Int32.self) == int32, try list.decode(Int64.self) == int64,
            try list.decode(UInt.self) == uint, try list.decode(UInt8.self) == uint8, try list.decode(UInt16.self) == uint16,
            try list.decode(UInt32.self) == uint32, try list.decode(UInt64.self) == uint64
        else { throw CocoaError(.coderReadCorrupt) }
        innerValue = try list.nestedContainer(keyedBy: Key.self).decode(Int.self, forKey: .inner)
        var innerList = try list.nestedUnkeyedContainer()
        guard try innerList.decode(Int.self) == innerValue, list.isAtEnd else { throw CocoaError(.coderReadCorrupt) }
        superValue = try keyed.superDecoder().singleValueContainer().decode(Int16.self)
        extraValue = try keyed.superDecoder(forKey: .extra).singleValueContainer().decode(UInt32.self)
    }
}

extension CompactCodingTests {
    @Test func aHandWrittenEncodingThroughEveryContainerComesBackEqual() throws {
        var value = EveryContainer()
        value.string = "naïve"
        value.innerValue = -3
        let decoded = try CompactCoding.decode(EveryContainer.self, from: CompactCoding.encode(value))
        #expect(decoded == value)
        // Each primitive also stands alone as a document (a single-value container at the top).
        #expect(try CompactCoding.decode(Float.self, from: CompactCoding.encode(Float(0.25))) == 0.25)
        #expect(try CompactCoding.decode(UInt16.self, from: CompactCoding.encode(UInt16.max)) == .max)
        #expect(try CompactCoding.decode(Int32.self, from: CompactCoding.encode(Int32.min)) == .min)
        #expect(try CompactCoding.decode(Bool.self, from: CompactCoding.encode(false)) == false)
    }

    @Test func aNumberThatDoesNotFitItsTypeIsAnError() throws {
        #expect(throws: DecodingError.self) { try CompactCoding.decode(UInt64.self, from: CompactCoding.encode(-1)) }
        #expect(throws: DecodingError.self) { try CompactCoding.decode(Int64.self, from: CompactCoding.encode(UInt64.max)) }
        #expect(throws: DecodingError.self) { try CompactCoding.decode(UInt8.self, from: CompactCoding.encode(256)) }
        #expect(throws: DecodingError.self) { try CompactCoding.decode(EveryContainer.self, from: CompactCoding.encode([1, 2])) }
    }
}
