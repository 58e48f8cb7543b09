import StateStore
import TestSupport
import Testing

/// A middleware that does one thing to actions matching a note, and records what it saw.
private struct Rule: Middleware {
    enum Behaviour: Sendable { case pass, transform, replace, stop, deferred(milliseconds: Int) }

    let name: String
    let behaviour: Behaviour
    let seen: Collected<String>

    init(_ name: String, _ behaviour: Behaviour = .pass, seen: Collected<String>) {
        self.name = name
        self.behaviour = behaviour
        self.seen = seen
    }

    func handle(_ action: Counter.Action, context: MiddlewareContext<Counter.State, Counter.Action>) -> MiddlewareStep<Counter.Action> {
        seen.append("\(name) saw \(action)")
        guard case .note(let text) = action else { return .next(action) }
        switch behaviour {
        case .pass:
            return .next(action)
        case .transform:
            return .next(.note(text.uppercased()))
        case .replace:
            return .next(.increment)
        case .stop:
            return .stop
        case .deferred(let milliseconds):
            return .deferred {
                try? await Task.sleep(for: .milliseconds(milliseconds))
                return .note("\(text) (after \(milliseconds) ms)")
            }
        }
    }
}

@Suite("Middleware")
struct MiddlewareTests {
    private func store(@MiddlewareBuilder<Counter.State, Counter.Action> _ pipeline: () -> MiddlewarePipeline<Counter.State, Counter.Action>) -> RootStore<
        Counter.State, Counter.Action
    > {
        RootStore(initialState: Counter.State(), reducer: Counter(), middleware: pipeline)
    }

    @Test func middlewareCanPassTransformReplaceOrStop() {
        let seen = Collected<String>()
        let passing = store { Rule("p", .pass, seen: seen) }
        passing.send(.note("a"))
        #expect(passing.currentState.log == ["a"])

        let transforming = store { Rule("t", .transform, seen: seen) }
        transforming.send(.note("a"))
        #expect(transforming.currentState.log == ["A"])

        let replacing = store { Rule("r", .replace, seen: seen) }
        replacing.send(.note("a"))
        #expect(replacing.currentState == Counter.State(count: 1, log: []))

        let stopping = store { Rule("s", .stop, seen: seen) }
        stopping.send(.note("a"))
        #expect(stopping.currentState == Counter.State())
    }

    @Test func middlewareRunsInOrderAndEachSeesTheLastOnesOutput() {
        let seen = Collected<String>()
        let store = store {
            Rule("first", .transform, seen: seen)
            Rule("second", .pass, seen: seen)
        }
        store.send(.note("x"))
        #expect(seen.all == ["first saw note(\"x\")", "second saw note(\"X\")"])
        #expect(store.currentState.log == ["X"])
    }

    @Test func everyBuilderBranch() {
        let seen = Collected<String>()
        let yes = true
        let no = false
        let optionalPresent: Rule? = Rule("optional-some", seen: seen)
        let optionalAbsent: Rule? = nil
        let nested = MiddlewarePipeline<Counter.State, Counter.Action>([AnyMiddleware(Rule("nested", seen: seen))])
        let store = store {
            Rule("single", seen: seen)
            if yes { Rule("if-true", seen: seen) }
            if no { Rule("if-false", seen: seen) }
            if no { Rule("then", seen: seen) } else { Rule("else", seen: seen) }
            if yes { Rule("then-taken", seen: seen) } else { Rule("else-skipped", seen: seen) }
            for index in 1...2 { Rule("loop-\(index)", seen: seen) }
            optionalPresent
            optionalAbsent
            nested
            EchoMiddleware()
            if #available(macOS 15, *) { Rule("available", seen: seen) }
        }
        store.send(.increment)
        #expect(
            seen.all.map { $0.replacingOccurrences(of: " saw increment", with: "") } == [
                "single", "if-true", "else", "then-taken", "loop-1", "loop-2", "optional-some", "nested", "available",
            ])
        #expect(store.currentState.count == 1)
    }

    @Test func aSlowDeferredMiddlewareDoesNotHoldUpLaterActions() async {
        let seen = Collected<String>()
        let store = store {
            Rule("slow", .deferred(milliseconds: 50), seen: seen)
            Rule("after", .transform, seen: seen)
        }
        let slow = store.send(.note("slow"))
        store.send(.increment)
        #expect(store.currentState == Counter.State(count: 1, log: []), "the later action went through at once")
        await slow.finish()
        #expect(store.currentState.log == ["SLOW (AFTER 50 MS)"], "the deferred result continued with the next middleware")
        #expect(seen.all.filter { $0.hasPrefix("slow saw note") }.count == 1, "it does not pass the same middleware twice")
    }

    @Test func contextGivesStateAndDispatchesThroughThePipelineLikeRedux() {
        let observed = Collected<String>()
        let store = store {
            AnyMiddleware { action, context in
                observed.append("\(action) at count \(context.state?.count ?? -1)")
                if action == .increment { context.send(.note("sent by middleware")) }
                return .next(action)
            }
        }
        store.send(.increment)
        store.send(.increment)
        #expect(
            observed.all == [
                "increment at count 0",
                "note(\"sent by middleware\") at count 0",
                "increment at count 1",
                "note(\"sent by middleware\") at count 1",
            ])
        #expect(store.currentState == Counter.State(count: 2, log: ["sent by middleware", "sent by middleware"]))
    }

    @Test func aSendFromMiddlewareWhileTheStoreIsBusyIsQueued() {
        let diagnostics = DiagnosticLog()
        let store = RootStore(initialState: Counter.State(), reducer: Counter(), diagnostics: .collecting(into: diagnostics)) {
            AnyMiddleware { action, context in
                if action == .note("from observer") { context.send(.note("follow-up")) }
                return .next(action)
            }
        }
        let subscription = store.observe { state in
            if state.count == 1, state.log.isEmpty { store.send(.note("from observer")) }
        }
        store.send(.increment)
        // The observer runs while the store delivers `increment`: both sends queue, in order.
        #expect(store.currentState.log == ["follow-up", "from observer"])
        #expect(diagnostics.entries.map(\.kind) == [.reentrantSend], "only the observer's own send is re-entrant")
        subscription.cancel()
    }

    @Test func loggingWritesEachActionWithSecretsRedacted() {
        struct Login: Reducer {
            struct Password: Secret, Sendable, Equatable { let value: String }
            enum Action: Sendable, Equatable {
                case signIn(username: String, password: String)
                case passwordChanged(String)
                case tokenReceived(accessToken: String)
                case secretValue(Password)
            }
            func reduce(into state: inout Int, action: Action) -> Effect<Action> { .none }
        }
        let lines = Collected<String>()
        let store = RootStore(initialState: 0, reducer: Login()) {
            LoggingMiddleware(sink: LogSink { lines.append($0) })
        }
        store.send(.signIn(username: "ada", password: "hunter22"))
        store.send(.passwordChanged("hunter22"))
        store.send(.tokenReceived(accessToken: "abc.def"))
        store.send(.secretValue(.init(value: "hunter22")))
        #expect(
            lines.all == [
                "action: Action.signIn(username: \"ada\", password: <redacted>)",
                "action: Action.passwordChanged(<redacted>)",
                "action: Action.tokenReceived(<redacted>)",
                "action: Action.secretValue(<redacted>)",
            ])
        #expect(!lines.all.joined().contains("hunter22"))
        #expect(!lines.all.joined().contains("abc.def"))
    }

    @Test func middlewareOverheadDoesNotChangeOrdering() async {
        let store = store {
            EchoMiddleware()
            EchoMiddleware()
            EchoMiddleware()
        }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask { for _ in 0..<2_000 { store.send(.increment) } }
            }
        }
        #expect(store.currentState.count == 8_000)
    }
}
