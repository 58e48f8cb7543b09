import Foundation
import Models
import Testing

@Suite("Models")
struct ModelsTests {
    @Test func usernamesAndPasswordsAreValidAtEightCharacters() {
        #expect(!Username("seven77").isValid)
        #expect(Username("eight888").isValid)
        #expect(!Username("        ").isValid, "only spaces")
        #expect(Username("   \u{00A0}\u{2003}\u{3000}  \r\n").problem == "A username cannot be only spaces.", "only spaces, some beyond ASCII")
        #expect(Username("        \u{00A0}é").problem == "A username cannot contain spaces, tabs or line breaks.", "spaces, then a letter beyond ASCII")
        #expect(!Password("seven77").isValid)
        #expect(Password("eight888").isValid)
        #expect(Username("Alice.Liddell").normalized == Username("alice.liddell").normalized)
        #expect(Credentials(username: "eight888", password: "eight888").isValid)
        let problem = Credentials(username: "abc", password: "x").problem ?? ""
        #expect(problem.contains("username needs at least 8"))
        #expect(problem.contains("password needs at least 8"))
    }

    /// Variants of "alice.liddell" that look like it or hide a character: each is refused, or
    /// names the same account.
    @Test func aUsernameThatLooksLikeAnotherIsRefusedOrTheSameAccount() {
        let alice = Username("alice.liddell")
        let refused: [(String, String)] = [
            ("\u{0430}lice.liddell", "alphabets"), // Cyrillic а
            ("alice.l\u{043E}ddell", "alphabets"), // Cyrillic о (in place of i, still a look-alike mix)
            (" alice.liddell", "spaces"), ("alice.liddell ", "spaces"), ("alice.\tliddell", "spaces"),
            ("alice.\u{200D}liddell", "U+200D"), ("alice.\u{200B}liddell", "U+200B"), ("alice.\u{00AD}liddell", "U+00AD"),
            ("\u{202E}alice.liddell", "U+202E"), ("alice.\u{0}liddell", "U+0000"), ("alice.\u{E000}liddell", "U+E000"),
        ]
        for (text, said) in refused {
            let problem = Username(text).problem
            #expect(problem?.contains(said) == true, "\(text.unicodeScalars.map { String($0.value, radix: 16) }): \(problem ?? "accepted")")
            #expect(!Username(text).isValid)
        }
        // One account whatever the width, the case or the composition.
        #expect(Username("\u{FF41}\u{FF4C}\u{FF49}\u{FF43}\u{FF45}.liddell").normalized == alice.normalized)
        #expect(Username("ALICE.LIDDELL").normalized == alice.normalized)
        let composed = Username("jos\u{E9}.garcia"), decomposed = Username("jose\u{301}.garcia")
        #expect(composed.isValid && decomposed.isValid)
        #expect(composed.normalized.unicodeScalars.elementsEqual(decomposed.normalized.unicodeScalars))
        #expect(Username("JOSE\u{301}.GARCIA").normalized.unicodeScalars.elementsEqual(composed.normalized.unicodeScalars))
        // Other alphabets are welcome, alone.
        #expect(Username("алиса.лидделл").isValid)
        #expect(Username("αλίκη.λίντελ").isValid)
        #expect(Username("ありすりでる123").isValid)
    }

    @Test(arguments: [
        "", " ", "seven77", "eight888", "        ", "         x", "\t\t\t\t\n\n\n\n", "é́é́é́é́é́é́é́", "😀😀😀😀😀😀😀😀",
        "\u{00A0}\u{00A0}\u{00A0}\u{00A0}\u{00A0}\u{00A0}\u{00A0}\u{00A0}", "alice.l\u{0}ddell", "ａｌｉｃｅ.liddell",
        "алиса.lidd", "alice liddell", "abcdef\r\n", "abcdefgh\u{7F}", "\t\t",
    ])
    func validityAndProblemAlwaysAgree(text: String) {
        #expect(Username(text).isValid == (Username(text).problem == nil))
        // The ASCII shortcut says what the general rule says: the same text with a letter beyond
        // ASCII at its end reads the same problem (but of length or of only spaces, which it changes).
        if text.utf8.allSatisfy({ $0 < 0x80 }), let problem = Username(text).problem, !problem.contains("at least"), !problem.contains("only spaces") {
            #expect(Username(text + "é").problem == problem, "\(text.debugDescription)")
        }
        #expect(Password(text).isValid == (Password(text).problem == nil))
    }

    @Test func aPasswordNeverPrintsItsText() throws {
        let secret = "correct horse battery"
        let password = Password(secret)
        let credentials = Credentials(username: "alice.liddell", password: password)
        var dumped = ""
        dump(credentials, to: &dumped)
        let renderings = [
            "\(password)", String(describing: password), String(reflecting: password),
            "\(credentials)", String(reflecting: credentials), dumped,
            String(decoding: try JSONEncoder().encode(credentials), as: UTF8.self),
            String(decoding: try PropertyListEncoder().encode([credentials]), as: UTF8.self),
        ]
        for rendering in renderings {
            #expect(!rendering.contains(secret), "leaked in: \(rendering)")
        }
        #expect("\(password)" == "<redacted>")
        #expect(password.revealed == secret)
    }

    @Test func aTokenNeverPrintsItsText() throws {
        let session = AuthSession(user: User(id: User.ID(UUID()), username: "alice.liddell"), token: AccessToken("tok-123-secret"))
        var dumped = ""
        dump(session, to: &dumped)
        let json = String(decoding: try JSONEncoder().encode(session), as: UTF8.self)
        for rendering in ["\(session)", String(reflecting: session), dumped, json] {
            #expect(!rendering.contains("tok-123-secret"), "leaked in: \(rendering)")
        }
    }

    @Test func secretsDecodeEmptyFromTheirRedactedForm() throws {
        let credentials = Credentials(username: "alice.liddell", password: "wonderland")
        let decoded = try JSONDecoder().decode(Credentials.self, from: JSONEncoder().encode(credentials))
        #expect(decoded.username == credentials.username)
        #expect(decoded.password.isEmpty)
        let token = try JSONDecoder().decode([AccessToken].self, from: JSONEncoder().encode([AccessToken("t")]))
        #expect(token.first?.isEmpty == true)
        // A front end can still read a password from a request.
        let typed = try JSONDecoder().decode(Password.self, from: Data(#""typed-in""#.utf8))
        #expect(typed.revealed == "typed-in")
    }

    @Test func identifiersRoundTripAsLowercaseUUIDs() throws {
        let id = Note.ID(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!)
        #expect(id.description == "e621e1f8-c36c-495a-93fc-0c247a3e6e5f")
        #expect(Note.ID("e621e1f8-c36c-495a-93fc-0c247a3e6e5f") == id)
        #expect(Note.ID("not an id") == nil)
        #expect(try JSONDecoder().decode(Note.ID.self, from: JSONEncoder().encode(id)) == id)
    }

    @Test func modelsRoundTripThroughCodable() throws {
        let date = Date(timeIntervalSince1970: 1_800_000_000)
        let note = Note(id: Note.ID(UUID()), text: "line one\nline two", createdAt: date)
        let post = Post(id: Post.ID(UUID()), authorID: User.ID(UUID()), text: "hi", createdAt: date)
        let user = User(id: User.ID(UUID()), username: "alice.liddell", displayName: "Alice", bio: "Curious")
        #expect(try JSONDecoder().decode(Note.self, from: JSONEncoder().encode(note)) == note)
        #expect(try JSONDecoder().decode(Post.self, from: JSONEncoder().encode(post)) == post)
        #expect(try JSONDecoder().decode(User.self, from: JSONEncoder().encode(user)) == user)
        let outcomes: [Outcome<Note>] = [.success(note), .failure(.notFound(.note, id: "x")), .failure(.network(reason: "offline"))]
        #expect(try JSONDecoder().decode([Outcome<Note>].self, from: JSONEncoder().encode(outcomes)) == outcomes)
    }

    @Test func noteTitlesAndSearchMatching() {
        let note = Note(id: Note.ID(UUID()), text: "\n  Groceries  \nmilk, Crème fraîche", createdAt: Date())
        #expect(note.title == "Groceries")
        #expect(note.matches("creme MILK"))
        #expect(note.matches(""))
        #expect(!note.matches("milk bread"))
        #expect(Note(id: Note.ID(UUID()), text: "   ", createdAt: Date()).title == "")
    }

    @Test func postsNeedText() {
        #expect(Post.problem(with: "  \n") != nil)
        #expect(Post.problem(with: String(repeating: "a", count: Post.maximumLength + 1)) != nil)
        #expect(Post.problem(with: "hello") == nil)
    }

    @Test func everyErrorSaysWhatToDo() {
        let errors: [AppError] = [
            .invalidCredentials, .usernameTaken("alice.liddell"), .invalidInput(reason: "A post needs some text."),
            .network(reason: "timed out"), .notSignedIn, .sessionExpired, .notFound(.note, id: "42"),
            .storage(reason: "disk I/O error"), .cancelled,
        ]
        for error in errors {
            #expect(error.message.hasSuffix("."), "\(error)")
            #expect(error.description == error.message)
        }
        #expect(AppError.notSignedIn.message.contains("Sign in first"))
        #expect(AppError.notFound(.note, id: "42").message.contains("note with id 42"))
        #expect(AppError.network(reason: "timed out").message.contains("timed out"))
    }
}

@Suite("Identifier")
struct IdentifierTests {
    @Test func printsAndOrdersLikeItsLowercaseUUIDString() {
        let uuids =
            (0..<200).map { _ in UUID() }
            + [UUID(uuidString: "00000000-0000-0000-0000-000000000000"), UUID(uuidString: "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF")].compactMap { $0 }
        let ids = uuids.map { Identifier<Note>($0) }
        for (uuid, id) in zip(uuids, ids) {
            #expect(id.description == uuid.uuidString.lowercased())
            #expect(Identifier<Note>(id.description) == id)
        }
        #expect(ids.sorted().map(\.description) == uuids.map { $0.uuidString.lowercased() }.sorted())
    }

    @Test func readsCanonicalUUIDStringsOnly() {
        // Valid strings in both cases, and each mutated at every position: a character left out,
        // one added, one replaced by a character of every kind.
        var strings = (0..<50).flatMap { _ in [UUID().uuidString, UUID().uuidString.lowercased()] }
        let base = UUID().uuidString
        let replacements: [Character] = ["0", "9", "a", "f", "A", "F", "g", "G", "-", " ", "\u{0}", "é", "+", "x"]
        for offset in 0...base.count {
            let index = base.index(base.startIndex, offsetBy: offset)
            var added = base
            added.insert("a", at: index)
            strings.append(added)
            guard offset < base.count else { continue }
            var removed = base
            removed.remove(at: index)
            strings.append(removed)
            for character in replacements {
                var replaced = base
                replaced.replaceSubrange(index...index, with: String(character))
                strings.append(replaced)
            }
        }
        strings += ["", "{\(base)}", " \(base)", base + " ", base.replacingOccurrences(of: "-", with: "")]
        // Foundation reads these too (on Linux it also reads some with a space or a sign inside a
        // group, as something else: no id has those).
        func isCanonical(_ string: String) -> Bool {
            let bytes = Array(string.utf8)
            return bytes.count == 36
                && bytes.enumerated().allSatisfy { offset, byte in
                    [8, 13, 18, 23].contains(offset) ? byte == UInt8(ascii: "-") : Character(UnicodeScalar(byte)).isHexDigit
                }
        }
        for string in strings {
            #expect(Identifier<Note>(string)?.rawValue == (isCanonical(string) ? UUID(uuidString: string) : nil), "\(string.debugDescription)")
        }
        #expect(strings.filter(isCanonical).count > 100, "valid ones and those a replaced digit keeps valid")
    }

    @Test func aTextHoldsTheWordsItsFoldedTextHolds() {
        let texts = [
            "", "Milk and EGGS", "milk", "MILK", "a", "Zebra [brackets] @at", "Café au lait", "ÉTÉ", "ﬁle", "ＡＢＣ", "straße", "x\ny\tz",
        ]
        let queries = ["", "milk", "MILK", "milk eggs", "k a", "z", "[b", "@", "@at", "cafe", "ete", "file", "abc", "strasse", "y z", "milkk", "é"]
        for text in texts {
            for query in queries {
                let words = SearchText.words(of: query)
                #expect(SearchText.text(text, holdsEvery: words) == SearchText.matches(SearchText.folded(text), words: words), "\(text) ∋ \(query)")
            }
        }
    }

    @Test func aTitleIsTheFirstLineWithTextTrimmed() {
        let date = Date(timeIntervalSince1970: 0)
        #expect(Note(id: Note.ID(UUID()), text: "\n \t \n  Groceries \t\nmilk", createdAt: date).title == "Groceries")
        #expect(Note(id: Note.ID(UUID()), text: " \u{00A0}\n\r\n", createdAt: date).title == "")
        #expect(Note(id: Note.ID(UUID()), text: "one line", createdAt: date).title == "one line")
    }
}
