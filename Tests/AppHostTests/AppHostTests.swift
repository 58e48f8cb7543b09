import AppHost
import Foundation
import Models
import Observation
import Persistence
import StateStore
import TestSupport
import Testing
import ViewModels

/// The host as a front end uses it: intents in, settled screens out, from memory and from a
/// database file, from one task and from two.
@Suite("AppHost")
struct AppHostTests {
    /// Signs up and in as alice on `host`; fails the test if any step is not completed.
    func signIn(_ host: AppHost, _ sourceLocation: SourceLocation = #_sourceLocation) async {
        for intent: Intent in [
            .signUp(username: "alice.liddell", password: "wonderland"), .typeUsername(username: "alice.liddell"),
            .typePassword(password: "wonderland"), .signIn,
        ] {
            let outcome = await host.perform(intent, timeout: patience)
            #expect(outcome.status == .completed, "\(intent) ended \(outcome.status)", sourceLocation: sourceLocation)
        }
    }

    /// Another host on the database at `path`, the way a batch job shares it (no journal of its
    /// own), signed in as alice; fails the test if a step is not completed.
    func otherHost(on path: String, live: LiveConfiguration) async throws -> AppHost {
        let other = try await AppHost(storage: .database(path: path), options: AppHost.Options(journal: .off, history: nil, live: live))
        for intent: Intent in [.typeUsername(username: "alice.liddell"), .typePassword(password: "wonderland"), .signIn] {
            #expect(await other.perform(intent, timeout: patience).status == .completed)
        }
        return other
    }

    @Test func performReturnsSettledScreensEvenWithLatency() async throws {
        let host = try await AppHost(storage: .inMemory(latency: .milliseconds(40)))
        await signIn(host)
        // Signing in loads the notes through an effect of the sign-in's response: settled too.
        #expect(host.screens.notes.isLoading == false)
        #expect(host.screens.session.isSignedIn)
        let added = await host.perform(.addNote(text: "milk"), timeout: patience)
        #expect(added.status == .completed)
        #expect(added.changed == [.notes])
        let row = try #require(added.screens.notes.rows.first)
        #expect(row.title == "milk" && !row.isPending, "the save finished before perform returned")
        #expect(added.screens == host.screens)
        try await host.close()
    }

    @Test func aTimeoutNamesWhatStillRunsInWordsNotSwiftDumps() async throws {
        // An hour: a sign up that could end while a starved pool delays the timeout is reported
        // completed (seen under the Thread Sanitizer with 30 s).
        let host = try await AppHost(storage: .inMemory(latency: .seconds(3600)))
        let outcome = await host.perform(.signUp(username: "alice.liddell", password: "wonderland"), timeout: .milliseconds(50))
        guard case .timedOut(let running) = outcome.status else {
            Issue.record("expected a timeout, got \(outcome.status)")
            return
        }
        #expect(running == [#".session(.signUpTapped(Credentials(username: "alice.liddell", password: <redacted>)))"#])
        host.cancelRunningIntents()
        try await host.close(timeout: .zero)
    }

    @Test func aRejectionBelongsToTheIntentThatWasRejected() async throws {
        let host = try await AppHost(storage: .inMemory(latency: .milliseconds(30)))
        // Signed out: adding a note is refused, while a slow sign-up runs alongside.
        async let signUp = host.perform(.signUp(username: "bob.builder", password: "canwefixit"), timeout: patience)
        async let note = host.perform(.addNote(text: "milk"), timeout: patience)
        let (signedUp, refused) = await (signUp, note)
        #expect(signedUp.status == .completed)
        #expect(refused.status == .rejected(reason: "You are not signed in. Sign in first."))
        let retry = await host.perform(.retryProfile, timeout: patience)
        #expect(retry.status == .rejected(reason: "Nothing on the profile failed to load; load it again instead."))
        try await host.close()
    }

    @Test func theNoteOnTopDeletedByAnotherHostLeavesThisHostsList() async throws {
        let path = NSTemporaryDirectory() + "appcore-top-\(UUID().uuidString).sqlite"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        // This host looks for other writers only when told, so the test says when.
        let live = LiveConfiguration(passwordIterations: 1_000, externalWriteInterval: .seconds(3600))
        let host = try await AppHost(storage: .database(path: path), options: AppHost.Options(history: nil, live: live))
        await signIn(host)
        for text in ["milk", "eggs"] { #expect(await host.perform(.addNote(text: text), timeout: patience).status == .completed) }
        #expect(await host.perform(.reloadNotes, timeout: patience).status == .completed)

        let other = try await otherHost(on: path, live: live)
        let top = try #require(other.screens.notes.rows.first)
        #expect(top.title == "eggs")
        #expect(await other.perform(.deleteNote(id: top.id), timeout: patience).status == .completed)
        try await other.close()

        #expect(await host.store.send(.notes(.externalChangesNoticed)).settle(timeout: patience))
        #expect(host.screens.notes.rows.map(\.title) == ["milk"], "the note deleted elsewhere is gone here too")
        try await host.close()
    }

    @Test func aHostFartherBehindThanTheDeletionWindowGetsTheWholeListAndShowsWhatIsStored() async throws {
        let path = NSTemporaryDirectory() + "appcore-window-\(UUID().uuidString).sqlite"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        // Deletions remembered for 3 changes; this host looks for other writers only when told.
        let live = LiveConfiguration(passwordIterations: 1_000, externalWriteInterval: .seconds(3600), deletionWindow: 3)
        let host = try await AppHost(storage: .database(path: path), options: AppHost.Options(history: nil, live: live))
        await signIn(host)
        for text in ["a", "b", "c", "d", "e"] { #expect(await host.perform(.addNote(text: text), timeout: patience).status == .completed) }

        // Another writer deletes four notes (more than the window remembers) and adds one.
        let other = try await otherHost(on: path, live: live)
        for row in other.screens.notes.rows.prefix(4) {
            #expect(await other.perform(.deleteNote(id: row.id), timeout: patience).status == .completed)
        }
        #expect(await other.perform(.addNote(text: "f"), timeout: patience).status == .completed)
        let stored = other.screens.notes.rows.map(\.title)
        try await other.close()
        #expect(stored == ["f", "a"])

        let answers = Locked<[NoteChanges]>([])
        let watching = host.store.observeActions { action, _ in
            if case .notes(.changesResponse(_, .success(let changes))) = action { answers.withLock { $0.append(changes) } }
        }
        #expect(await host.store.send(.notes(.externalChangesNoticed)).settle(timeout: patience))
        #expect(host.screens.notes.rows.map(\.title) == stored, "the deleted notes are gone although their records are")
        #expect(answers.withLock { $0.map(\.replacesAll) } == [true])
        watching.cancel()
        try await host.close()
    }

    @Test func anEditOfTheScreensAFrontEndShowsIsAConflictWhenAnotherHostChangedTheNoteUnseen() async throws {
        let path = NSTemporaryDirectory() + "appcore-shown-\(UUID().uuidString).sqlite"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let host = try await AppHost(storage: .database(path: path), options: AppHost.Options(history: nil, live: .testing))
        await signIn(host)
        let added = await host.perform(.addNote(text: "base"), timeout: patience)
        let id = try #require(added.screens.notes.rows.first?.id)
        let shown = added.screens

        let other = try await otherHost(on: path, live: .testing)
        #expect(await other.perform(.editNote(id: id, text: "theirs"), timeout: patience).status == .completed)
        try await other.close()
        // The host hears of it by itself; the front end has not drawn it.
        let heard = Task {
            for await screens in host.changes() where screens.notes.rows.first?.title == "theirs" { return true }
            return false
        }
        let timeout = Task {
            try? await Task.sleep(for: patience)
            heard.cancel()
        }
        #expect(await heard.value)
        timeout.cancel()

        let edit = await host.perform(.editNote(id: id, text: "mine"), timeout: patience, since: shown)
        guard case .failed(let reason) = edit.status else {
            Issue.record("an edit of a version its front end never showed was stored: \(edit.status)")
            return
        }
        #expect(reason.contains("Another process changed this note since you opened it"), "\(reason)")
        #expect(edit.screens.notes.rows.first?.isUnsaved == true, "the user's text stays, unsaved")
        // A front end that draws every change (no `since`) was shown theirs: its edit is stored.
        #expect(await host.perform(.editNote(id: id, text: "mine, knowingly"), timeout: patience).status == .completed)
        try await host.close()
    }

    /// The state may hear of another process's version between `perform` and the edit's
    /// reduction (seen once in 30 rounds of two `appcore-serve` editing at once: both stored):
    /// the edit carries the version shown, even when the state holds that one at `perform`.
    @Test func anEditOfTheScreensAFrontEndShowsCarriesTheVersionShownWhateverTheStateHearsLater() async throws {
        let path = NSTemporaryDirectory() + "appcore-pinned-\(UUID().uuidString).sqlite"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let host = try await AppHost(storage: .database(path: path), options: AppHost.Options(history: nil, live: .testing))
        await signIn(host)
        let added = await host.perform(.addNote(text: "base"), timeout: patience)
        let row = try #require(added.screens.notes.rows.first)
        let shownVersion = try #require(added.screens.notes.rows.note(row.id)?.version)
        let based = Locked<[Int64?]>([])
        let watching = host.store.observeActions { action, _ in
            if case .notes(.edited(_, _, let version)) = action { based.withLock { $0.append(version) } }
        }
        #expect(await host.perform(.editNote(id: row.id, text: "mine"), timeout: patience, since: host.screens).status == .completed)
        #expect(based.withLock { $0 } == [shownVersion])
        watching.cancel()
        try await host.close()
    }

    @Test func notesReloadWithWhatAnotherHostWroteAndTheirErrorCanBeDismissed() async throws {
        let path = NSTemporaryDirectory() + "appcore-reload-\(UUID().uuidString).sqlite"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        var options = AppHost.Options(history: nil, live: .testing)
        options.injectsFailures = true
        let host = try await AppHost(storage: .database(path: path), options: options)
        await signIn(host)
        let other = try await otherHost(on: path, live: .testing)
        #expect(await other.perform(.addNote(text: "from elsewhere"), timeout: patience).status == .completed)
        try await other.close()

        host.failures.failNext(.notesList)
        let failed = await host.perform(.reloadNotes, timeout: patience)
        #expect(failed.status != .completed)
        #expect(failed.screens.notes.errorMessage != nil)
        let dismissed = await host.perform(.dismissNotesError, timeout: patience)
        #expect(dismissed.status == .completed && dismissed.changed == [.notes])
        #expect(dismissed.screens.notes.errorMessage == nil)
        let reloaded = await host.perform(.reloadNotes, timeout: patience)
        #expect(reloaded.status == .completed)
        #expect(reloaded.screens.notes.rows.map(\.title) == ["from elsewhere"])
        try await host.close()
    }

    @MainActor
    @Test func aDatabaseHostsClientsWorkOffTheSendersThreadSoSendReturnsAtOnce() async throws {
        let path = NSTemporaryDirectory() + "appcore-offcaller-\(UUID().uuidString).sqlite"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        // The real password hashing (a tenth of a second or more), as a UI would meet it.
        let host = try await AppHost(storage: .database(path: path), options: AppHost.Options(journal: .off, history: nil))
        let sender = pthread_self()
        let task = host.store.send(.session(.signUpTapped(Credentials(username: "frank.ocean", password: "blonde2016"))))
        #expect(pthread_equal(sender, pthread_self()) != 0)
        #expect(!task.isSettled, "send came back before hashing and writing the account: they run elsewhere")
        #expect(await task.settle(timeout: .seconds(30)))
        #expect(host.screens.session.message?.contains("frank.ocean") == true, "\(host.screens.session)")
        try await host.close()
    }

    @MainActor
    @Test func aMainActorHostsViewModelsChangeOnTheMainActorOnlyOncePerSettledBurst() async throws {
        let path = NSTemporaryDirectory() + "appcore-main-actor-\(UUID().uuidString).sqlite"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        var options = AppHost.Options(journal: .off, history: nil, live: .testing)
        options.observation = .mainActor
        let host = try await AppHost(storage: .database(path: path), options: options)
        await signIn(host)
        let counts = Locked<[Int]>([])
        let notes = host.notes
        @Sendable func track() {
            withObservationTracking {
                _ = notes.snapshot
            } onChange: {
                // The isolation check: traps, failing the run, anywhere but on the main actor.
                MainActor.assumeIsolated { counts.withLock { $0.append(notes.snapshot.count) } }
                track()
            }
        }
        track()
        // The note's save is written on the database's queue and answered on the pool: two
        // bursts, the second reduced off the main actor.
        #expect(await host.perform(.addNote(text: "milk"), timeout: patience).status == .completed)
        while counts.withLock({ $0 }).isEmpty { await Task.yield() }
        await Task.yield()
        let heard = counts.withLock { $0 }
        #expect((1...2).contains(heard.count), "once per settled burst: \(heard)")
        // Told before the value moves (Observation's will-change): the value then is the one before.
        #expect(heard.first == 0)
        #expect(notes.snapshot.rows.first?.title == "milk")
        try await host.close()
    }

    @Test func aTimeoutNamesWhatStillRuns() async throws {
        let host = try await AppHost(storage: .inMemory(latency: .seconds(3600))) // as above
        let outcome = await host.perform(.signUp(username: "carol.danvers", password: "higherfurther"), timeout: .milliseconds(50))
        guard case .timedOut(let running) = outcome.status else {
            Issue.record("expected a timeout, got \(outcome.status)")
            return
        }
        #expect(running.count == 1 && running.first?.contains("signUpTapped") == true, "\(running)")
        #expect(running.allSatisfy { !$0.contains("higherfurther") }, "a password never shows")
        try await host.close(timeout: .zero)
    }

    @Test func changesDeliversTheScreensNowThenAfterEachChange() async throws {
        let host = try await AppHost(storage: .inMemory())
        await host.perform(.increment, timeout: patience)
        let changes = host.changes(bufferingPolicy: .unbounded)
        var iterator = changes.makeAsyncIterator()
        await host.perform(.increment, timeout: patience)
        await host.perform(.increment, timeout: patience)
        let now = await iterator.next()
        let first = await iterator.next()
        let second = await iterator.next()
        #expect(now?.counter.count == 1, "the screens as they were when the stream began")
        #expect(first?.counter.count == 2)
        #expect(second?.counter.count == 3)
        try await host.close()
    }

    @Test func actionsMeasureWhatChangedSinceTheScreensAFrontEndShows() async throws {
        let host = try await AppHost(storage: .inMemory())
        let shown = host.screens
        await host.perform(.typeUsername(username: "dora"), timeout: patience)
        let outcome = await host.perform(actions: [.counter(.incrementTapped)], timeout: patience, since: shown)
        #expect(outcome.changed == [.login, .counter], "measured against what is shown, not the screens just before")
        #expect(await host.perform(actions: [.counter(.incrementTapped)], timeout: patience).changed == [.counter])
        try await host.close()
    }

    @Test func intentsScreensAndOutcomesRoundTripThroughJSON() async throws {
        let id = try #require(Note.ID("0A1B2C3D-0000-4000-8000-00000000000F"))
        // One intent of each kind, from the catalog: a new intent is tested without being listed.
        let intents = Intent.Kind.allCases.flatMap { kind in
            let choices: [[Intent.Argument]] = kind.parameters.reduce([[]]) { partial, parameter in
                let values: [Intent.Argument] =
                    switch parameter.value {
                    case .text: [.text("alice.liddell")]
                    case .secret: [.text("wonderland")]
                    case .note: [.note(id)]
                    case .optionalNote: [.note(id), .note(nil)]
                    }
                return partial.flatMap { prefix in values.map { prefix + [$0] } }
            }
            return choices.compactMap { Intent(kind, $0) }
        }
        #expect(Set(intents.map(\.kind)) == Set(Intent.Kind.allCases), "every kind is made from its parameters")
        #expect(intents.allSatisfy { Intent($0.kind, $0.arguments) == $0 }, "an intent is its kind and its arguments")
        for intent in intents {
            let data = try JSONEncoder().encode(intent)
            #expect(try JSONDecoder().decode(Intent.self, from: data) == intent)
        }
        let edit = String(decoding: try JSONEncoder().encode(Intent.editNote(id: id, text: "x")), as: UTF8.self)
        #expect(edit.contains("\"0a1b2c3d-0000-4000-8000-00000000000f\""), "ids encode lowercase: \(edit)")
        #expect(try JSONDecoder().decode(Intent.self, from: Data(#"{"addNote":{"text":"milk"}}"#.utf8)) == .addNote(text: "milk"))
        #expect(try JSONDecoder().decode(Intent.self, from: Data(#"{"signIn":{}}"#.utf8)) == .signIn)
        #expect("\(Intent.signUp(username: "alice.liddell", password: "wonderland"))" == #"signUp(username: "alice.liddell", password: <redacted>)"#)
        #expect(!String(reflecting: Intent.typePassword(password: "wonderland")).contains("wonderland"))

        let host = try await AppHost(storage: .inMemory())
        await signIn(host)
        let outcome = await host.perform(.addNote(text: "milk\nand bread"), timeout: patience)
        let decoded = try JSONDecoder().decode(IntentOutcome.self, from: JSONEncoder().encode(outcome))
        #expect(decoded == outcome)
        let rejected = IntentOutcome(status: .rejected(reason: "no"), changed: [], screens: host.screens)
        #expect(try JSONDecoder().decode(IntentOutcome.self, from: JSONEncoder().encode(rejected)) == rejected)
        try await host.close()
    }

    @Test func screensAreValuesAndTellWhatChangedWhoeverReadThem() async throws {
        let host = try await AppHost(storage: .inMemory())
        let before = host.screens
        #expect(host.screens == before && host.screens.changed(since: before).isEmpty, "read twice with nothing between")
        await host.perform(.increment, timeout: patience)
        let after = host.screens
        #expect(after.changed(since: before) == [.counter])
        #expect(before.counter.count == 0 && after.counter.count == 1, "a read keeps its values")

        // A copy changed by hand is its own value, compared by what it shows.
        var edited = after
        edited.counter = before.counter
        #expect(after.counter.count == 1, "the copy changed, not the screens it came from")
        #expect(edited.changed(since: before).isEmpty && edited == before)
        #expect(edited.changed(since: after) == [.counter])
        edited.login.username = "someone"
        #expect(edited.changed(since: before) == [.login])

        // Another host's screens are compared by what they show, even when its view models have
        // moved as often: here both counters changed twice, to 2 and back to 0.
        let other = try await AppHost(storage: .inMemory())
        await other.perform(.increment, timeout: patience)
        await other.perform(.decrement, timeout: patience)
        await host.perform(.increment, timeout: patience)
        #expect(other.screens.changed(since: host.screens) == [.counter])
        #expect(other.screens.changed(since: before).isEmpty)

        // Decoded screens carry no host's stamp and compare by value.
        let decoded = try JSONDecoder().decode(Screens.self, from: JSONEncoder().encode(host.screens))
        #expect(decoded == host.screens && decoded.changed(since: after) == [.counter] && decoded.changed(since: host.screens).isEmpty)
        try await host.close()
        try await other.close()
    }

    @Test func aDatabaseHostSurvivesARestartAndLeavesNoWriteAheadLog() async throws {
        let folder = NSTemporaryDirectory() + "appcore-host-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/app.sqlite"
        let options = AppHost.Options(live: .testing)

        let first = try await AppHost(storage: .database(path: path), options: options)
        await signIn(first)
        #expect(await first.perform(.addNote(text: "remember the milk"), timeout: patience).status == .completed)
        try await first.close()
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        #expect(!FileManager.default.fileExists(atPath: path + "-shm"))

        let second = try await AppHost(storage: .database(path: path), options: options)
        #expect(second.restoredActions == 0, "a clean close leaves the journal compacted to one snapshot: nothing to replay")
        #expect(second.resumed.contains(.session), "the session without its token ended")
        #expect(second.screens.session.isSignedIn == false)
        #expect(second.screens.login.username == "alice.liddell")
        #expect(second.screens.login.credentialsHint == nil, "nothing was typed yet")
        #expect(await second.perform(.typePassword(password: "wonderland"), timeout: patience).status == .completed)
        #expect(await second.perform(.signIn, timeout: patience).status == .completed)
        #expect(second.screens.notes.rows.map(\.title) == ["remember the milk"])
        try await second.close()
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test func aDatabaseKeepsItsLoginStyleUnlessAnotherIsAskedForWhichItSays() async throws {
        let path = NSTemporaryDirectory() + "appcore-style-\(UUID().uuidString).sqlite"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let warnings = Locked<[String]>([])
        var options = AppHost.Options(history: nil, live: .testing)
        options.warnings = { line in warnings.withLock { $0.append(line) } }

        let first = try await AppHost(storage: .database(path: path), loginStyle: .adHoc, options: options)
        #expect(first.loginStyle == .adHoc)
        await first.perform(.typeUsername(username: "erin.example"), timeout: patience)
        try await first.close()

        let unasked = try await AppHost(storage: .database(path: path), options: options)
        #expect(unasked.loginStyle == .adHoc, "the journal's style goes on")
        #expect(unasked.screens.login.username == "erin.example")
        try await unasked.close()
        #expect(warnings.withLock { $0 }.isEmpty)

        let asked = try await AppHost(storage: .database(path: path), loginStyle: .middleware, options: options)
        #expect(asked.loginStyle == .middleware)
        #expect(asked.store.currentState.loginStyle == .middleware)
        #expect(warnings.withLock { $0 } == ["the journal's sign-in ran the adhoc login style; it runs middleware now, as asked"])
        try await asked.close()

        let fresh = try await AppHost(storage: .inMemory())
        #expect(fresh.loginStyle == .finiteStates)
        try await fresh.close()
    }

    @Test func aDatabaseThatCannotBeOpenedIsAClearError() async throws {
        do {
            _ = try await AppHost(storage: .database(path: "/no/such/folder/app.sqlite"))
            Issue.record("opening a database in a missing folder succeeded")
        } catch {
            #expect(error.description.contains("/no/such/folder/app.sqlite"))
        }
    }
}

/// A full disk, acted out with `PRAGMA max_page_count` (SQLite then reports a full database on
/// every platform): what the host said was done is what a restart finds.
@Suite("AppHost on a full disk")
struct FullDiskTests {
    @Test func anOutcomeSaysWhetherTheNoteWasKept() async throws {
        let path = NSTemporaryDirectory() + "appcore-full-\(UUID().uuidString).sqlite"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        var options = AppHost.Options(journal: .off, live: .testing)
        // Room for the schema and an account, then a little more.
        options.preparingDatabase = { db throws(DatabaseError) in
            let pages = try db.query("PRAGMA page_count") { $0.int(0) }.first ?? 0
            _ = try db.query("PRAGMA max_page_count = \(pages + 6)") { $0.int(0) }
        }
        let host = try await AppHost(storage: .database(path: path), options: options)
        await AppHostTests().signIn(host)
        var kept: [String] = [], failed: [String] = []
        for number in 1...200 {
            let text = "note \(number) " + String(repeating: "x", count: 1_500)
            let outcome = await host.perform(.addNote(text: text), timeout: patience)
            switch outcome.status {
            case .completed: kept.append(text)
            case .failed(let reason):
                #expect(reason.contains("full"), "the reason names the cause: \(reason)")
                #expect(outcome.screens.notes.rows.first?.isUnsaved == true, "the screen shows it unsaved")
                failed.append(text)
            default: Issue.record("unexpected \(outcome.status)")
            }
        }
        #expect(!kept.isEmpty && !failed.isEmpty, "kept \(kept.count), failed \(failed.count)")
        try await host.close()

        let reopened = try await AppHost(storage: .database(path: path), options: AppHost.Options(journal: .off, live: .testing))
        for intent: Intent in [.typeUsername(username: "alice.liddell"), .typePassword(password: "wonderland"), .signIn] {
            #expect(await reopened.perform(intent, timeout: patience).status == .completed)
        }
        let stored = Set(reopened.screens.notes.rows.map(\.title))
        #expect(
            kept.allSatisfy { text in stored.contains { text.hasPrefix($0.replacingOccurrences(of: "…", with: "")) } },
            "every note reported done is there after a restart")
        #expect(stored.count == kept.count, "and no note reported failed is")
        try await reopened.close()
    }

    @Test func aJournalThatCannotBeWrittenIsSaidOnceAndClosingFailsSayingWhatIsLost() async throws {
        let path = NSTemporaryDirectory() + "appcore-full-journal-\(UUID().uuidString).sqlite"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let warnings = Locked<[String]>([])
        var options = AppHost.Options(live: .testing)
        options.warnings = { line in warnings.withLock { $0.append(line) } }
        options.preparingDatabase = { db throws(DatabaseError) in
            // The journal's first snapshot fits; little more does.
            let pages = try db.query("PRAGMA page_count") { $0.int(0) }.first ?? 0
            _ = try db.query("PRAGMA max_page_count = \(pages + 2)") { $0.int(0) }
        }
        let host = try await AppHost(storage: .database(path: path), options: options)
        for _ in 0..<3_000 { await host.perform(.increment, timeout: patience) }
        // The journal writes in the background every 20 ms: wait for its first failure, then give
        // it a few more tries, which must not be said again.
        #expect(await eventually { !warnings.withLock { $0.isEmpty } })
        try await Task.sleep(for: .milliseconds(100))
        let said = warnings.withLock { $0 }
        #expect(said.count == 1, "one line for the episode, however many retries: \(said)")
        #expect(said.first?.hasPrefix("the journal cannot be written (") == true)
        do {
            try await host.close()
            Issue.record("closing with unwritten actions succeeded")
        } catch {
            #expect(error.description.contains("could not be written to the journal, so a restart will not resume after them"), "\(error)")
        }
    }
}
