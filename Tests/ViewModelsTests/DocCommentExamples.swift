import AppEnvironment
import Reducers
import StateStore
import Testing
import ViewModels

// LoginViewModel's doc comment example, run here; DocumentationExampleTests finds it in this
// file, so change the two together.

@MainActor
@Test func theLoginViewModelEnablesSignInOnceTheCredentialsAreValid() async {
    let store = RootStore(initialState: AppFeature.State(), reducer: AppFeature(environment: .inMemory()))
    let login = LoginViewModel(appStore: store)
    login.usernameChanged("alice.liddell")
    if login.isSignInEnabled { login.signIn() }
    #expect(!login.isSignInEnabled, "no password yet")
    login.passwordChanged("wonderland")
    #expect(login.isSignInEnabled)
}
