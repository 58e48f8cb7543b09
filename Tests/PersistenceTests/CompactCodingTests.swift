import AppEnvironment
import Foundation
import Models
import Reducers
import StateStore
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
        state.session.current = AuthSession(user: User(id: User.ID(UUID(sequence: 9)), username: "alice.liddell"), token: AccessToken(""))
        state.user = SignedIn.State(token: AccessToken(""), username: "alice.liddell")
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

    @Test func aDamagedDocumentIsAnErrorNotACrash() throws {
        let bytes = try CompactCoding.encode(Mixed())
        for length in [0, 1, 2, 3, bytes.count / 2, bytes.count - 1] {
            #expect(throws: DecodingError.self) { try CompactCoding.decode(Mixed.self, from: Array(bytes.prefix(length))) }
        }
        var newer = bytes
        newer[1] = CompactCoding.version + 1
        #expect(throws: DecodingError.self) { try CompactCoding.decode(Mixed.self, from: newer) }
        var garbled = bytes
        garbled[2] = 0xEE
        #expect(throws: DecodingError.self) { try CompactCoding.decode(Mixed.self, from: garbled) }
        #expect(throws: DecodingError.self) { try CompactCoding.decode(Int.self, from: CompactCoding.encode("text")) }
        #expect(throws: DecodingError.self) { try CompactCoding.decode(Int8.self, from: CompactCoding.encode(300)) }
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
        #expect(restored.login.status.username == "bob.builder")

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
