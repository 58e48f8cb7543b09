import AppEnvironment
import AppHost
import Foundation
import Models
import Persistence
import StateStore
import TestSupport
import Testing

/// Time as an input: the host tells the app its clock's time when the state waits for it, on a
/// test clock moved by hand and on real time alike, and the app changes as the time says.
@Suite("AppHost: time as an input")
struct TimeInputTests {
    let signIn: [Intent] = [
        .signUp(username: "alice.liddell", password: "wonderland"), .typeUsername(username: "alice.liddell"),
        .typePassword(password: "wonderland"), .signIn,
    ]

    @Test func aSessionEndsWhenTheTestClockPassesItsExpiryAndNotBefore() async throws {
        let clock = ManualClock()
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        var options = AppHost.Options(testClock: clock)
        options.clients = .inMemory(backend: InMemoryBackend(now: .following(clock, from: start), sessionLifetime: 60), clock: clock, start: start)
        let host = try await AppHost(storage: .inMemory(), options: options)
        for intent in signIn { #expect(await host.perform(intent, timeout: patience).status == .completed) }
        #expect(host.store.currentState.nextTimeChange == start.addingTimeInterval(60))

        #expect(try await host.advanceClock(by: .seconds(59), timeout: patience))
        #expect(host.screens.session.isSignedIn, "a second before its expiry the session stands")
        #expect(try await host.advanceClock(by: .seconds(1), timeout: patience))
        let screens = host.screens
        #expect(!screens.session.isSignedIn)
        #expect(screens.session.message == AppError.sessionExpired.message)
        #expect(screens.login.username == "alice.liddell", "the sign-in screen comes back with the username typed")
        try await host.close()
    }

    @Test func aRealTimeHostEndsASessionWhenItExpiresWithNobodyAsking() async throws {
        let folder = TemporaryFolder()
        let live = LiveConfiguration(passwordIterations: 1_000, tokenLifetime: 2)
        let host = try await AppHost(storage: .database(path: folder.file("app.sqlite")), options: AppHost.Options(live: live))
        for intent in signIn.dropLast() { #expect(await host.perform(intent, timeout: patience).status == .completed) }
        // The session opens after this, so it expires 2 s after this at the earliest (a loaded
        // machine may take longer than that to sign in: the host may end it at once then).
        let earliestExpiry = Date().addingTimeInterval(2)
        #expect(await host.perform(.signIn, timeout: patience).status == .completed)

        let ended = await firstScreens(of: host) { !$0.session.isSignedIn }
        #expect(Date() >= earliestExpiry, "not before the expiry")
        #expect(ended?.session.message == AppError.sessionExpired.message)
        try await host.close()
    }

    /// The first screens `host` shows that `hold`, waiting on its changes (for at most `patience`).
    private func firstScreens(of host: AppHost, where hold: @escaping @Sendable (Screens) -> Bool) async -> Screens? {
        await withTimeout(patience) {
            for await screens in host.changes(bufferingPolicy: .bufferingNewest(1)) where hold(screens) { return screens }
            return nil
        }
    }
}
