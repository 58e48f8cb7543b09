import AppEnvironment
import Models
import Reducers
import StateStore
import TestSupport
import Testing
import ViewModels

@Suite("Login view model")
struct LoginViewModelTests {
    @Test func everyPropertyAcrossTheStates() async {
        let app = AppHarness(latency: .seconds(1))
        let login = LoginViewModel(appStore: app.store)
        #expect(login.snapshot == LoginViewModel.Snapshot(LoginStatus()))
        #expect(login.username == "" && login.maskedPassword == "" && login.credentialsHint == nil)
        #expect(!login.isSignInEnabled && !login.isBusy && !login.isAuthenticated && login.errorMessage == nil)

        login.usernameChanged("alice")
        #expect(login.username == "alice")
        #expect(login.credentialsHint?.contains("username needs at least 8") == true)
        #expect(!login.hasValidCredentials && !login.isSignInEnabled)

        login.usernameChanged("alice.liddell")
        login.passwordChanged("wrong-pass")
        #expect(login.maskedPassword == "••••••••••")
        #expect(login.hasValidCredentials && login.isSignInEnabled && login.credentialsHint == nil)

        login.signIn()
        #expect(login.isBusy && !login.isSignInEnabled, "busy: show a spinner, disable the button")
        await app.settle()
        #expect(login.errorMessage == AppError.invalidCredentials.message)
        #expect(!login.isBusy && !login.hasValidCredentials && !login.isSignInEnabled)

        login.passwordChanged("wonderland")
        #expect(login.errorMessage != nil, "typing keeps the error until it is acknowledged")
        login.acknowledgeError()
        #expect(login.errorMessage == nil && login.isSignInEnabled)

        login.signIn()
        await app.settle()
        #expect(login.isAuthenticated && !login.isSignInEnabled && login.maskedPassword == "")
    }

    @Test func intentsSendTheirActions() {
        let app = AppHarness()
        let login = LoginViewModel(appStore: app.store)
        login.usernameChanged("bob")
        login.passwordChanged("pw")
        login.signIn()
        login.acknowledgeError()
        #expect(
            app.takeActions() == [
                .login(.usernameChanged("bob")), .login(.passwordChanged("pw")), .login(.signInTapped), .login(.errorAcknowledged),
            ])
        #expect(app.diagnostics.entries.count == 2, "sign in and acknowledge were rejected, and said so")
    }

    @Test func observationFiresOnlyWhenTheScreenChanges() async {
        let app = AppHarness()
        let login = LoginViewModel(appStore: app.store)
        let changes = ChangeCounter { _ = login.snapshot }
        app.store.send(.counter(.incrementTapped))
        // idle → validatingCredentials changes the state but nothing the screen shows.
        app.store.send(.login(.usernameChanged("")))
        #expect(app.store.currentState.account != .signedOut(Login.State(style: .finiteStates)))
        #expect(changes.changes == 0)
        app.store.send(.login(.usernameChanged("a")))
        #expect(await eventually { changes.changes == 1 })
    }

    /// The three login styles, driven through the whole app, show the same login screens.
    @Test func theThreeStylesShowTheSameScreens() async {
        func screens(_ style: LoginStyle) async -> [LoginViewModel.Snapshot] {
            let app = AppHarness(style: style, latency: .milliseconds(50))
            let login = LoginViewModel(appStore: app.store)
            var seen: [LoginViewModel.Snapshot] = [login.snapshot]
            func record() { if seen.last != login.snapshot { seen.append(login.snapshot) } }
            let steps: [@Sendable (LoginViewModel) -> Void] = [
                { $0.usernameChanged("alice.liddell") }, { $0.passwordChanged("bad") }, { $0.signIn() },
                { $0.passwordChanged("badpassword") }, { $0.signIn() }, { $0.signIn() },
            ]
            for step in steps {
                step(login)
                record()
            }
            await app.settle()
            record()
            login.passwordChanged("wonderland")
            record()
            login.acknowledgeError()
            record()
            login.signIn()
            record()
            await app.settle()
            record()
            return seen
        }
        let reference = await screens(.finiteStates)
        #expect(reference.count == 10)
        #expect(reference.last?.isAuthenticated == true)
        #expect(await screens(.adHoc) == reference)
        #expect(await screens(.middleware) == reference)
    }
}
