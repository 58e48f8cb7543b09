/// Runs a child feature's reducer on part of a parent's state, for the parent's actions that
/// carry a child action.
///
/// ```swift
/// Scope(state: \.counter, action: AppAction.counterPath) {
///     Counter()
/// }
/// ```
public struct Scope<ParentState: Sendable, ParentAction: Sendable, Child: Reducer>: Reducer {
    private let toChildState: WritableKeyPath<ParentState, Child.State> & Sendable
    private let toChildAction: ActionPath<ParentAction, Child.Action>
    private let child: Child

    /// Scopes `child` to the state at `state` and the actions `action` extracts.
    public init<ChildState, ChildAction>(
        state: WritableKeyPath<ParentState, ChildState> & Sendable,
        action: ActionPath<ParentAction, ChildAction>,
        @ReducerBuilder<ChildState, ChildAction> child: () -> Child
    ) where ChildState == Child.State, ChildAction == Child.Action {
        toChildState = state
        toChildAction = action
        self.child = child()
    }

    /// Runs the child on its part of the state when the action is one of the child's.
    public func reduce(into state: inout ParentState, action: ParentAction) -> Effect<ParentAction> {
        guard let childAction = toChildAction.extract(action) else { return .none }
        return child.reduce(into: &state[keyPath: toChildState], action: childAction).map(toChildAction.embed)
    }
}

extension Reducer {
    /// Runs `child` on an optional part of the state while it is present, before this reducer.
    ///
    /// A child action that arrives while the child state is `nil` changes nothing and is reported
    /// as a ``Diagnostic/Kind/missingChild`` diagnostic; this reducer still sees it.
    public func ifLet<ChildState, ChildAction, Child: Reducer>(
        _ state: WritableKeyPath<State, ChildState?> & Sendable,
        action: ActionPath<Action, ChildAction>,
        @ReducerBuilder<ChildState, ChildAction> then child: () -> Child
    ) -> IfLetReducer<Self, Child> where ChildState == Child.State, ChildAction == Child.Action {
        IfLetReducer(parent: self, toChildState: state, toChildAction: action, child: child())
    }

    /// Runs `element` on the element of a collection that an action addresses by id, before this
    /// reducer.
    ///
    /// An action for an id that is not in the collection changes nothing and is reported as a
    /// ``Diagnostic/Kind/missingChild`` diagnostic; this reducer still sees it.
    public func forEach<Element: Identifiable & Sendable, ElementAction, Child: Reducer>(
        _ elements: WritableKeyPath<State, IdentifiedArray<Element>> & Sendable,
        action: ActionPath<Action, (Element.ID, ElementAction)>,
        @ReducerBuilder<Element, ElementAction> element: () -> Child
    ) -> ForEachReducer<Self, Element, Child>
    where Child.State == Element, Child.Action == ElementAction, Element.ID: Sendable {
        ForEachReducer(parent: self, toElements: elements, toElementAction: action, element: element())
    }
}

/// A parent reducer with a child that runs on optional state; see ``Reducer/ifLet(_:action:then:)``.
public struct IfLetReducer<Parent: Reducer, Child: Reducer>: Reducer {
    let parent: Parent
    let toChildState: WritableKeyPath<Parent.State, Child.State?> & Sendable
    let toChildAction: ActionPath<Parent.Action, Child.Action>
    let child: Child

    /// Runs the child (when its state is present and the action is its), then the parent.
    public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action> {
        var childEffect = Effect<Parent.Action>.none
        if let childAction = toChildAction.extract(action) {
            if state[keyPath: toChildState] != nil {
                childEffect = modifyWrapped(&state[keyPath: toChildState]) { childState in
                    child.reduce(into: &childState, action: childAction)
                }
                .map(toChildAction.embed)
            } else {
                childEffect = .diagnostic(.missingChild(action: action, child: "\(toChildState)"))
            }
        }
        return childEffect.merge(with: parent.reduce(into: &state, action: action))
    }

    private func modifyWrapped(
        _ optional: inout Child.State?, _ body: (inout Child.State) -> Effect<Child.Action>
    ) -> Effect<Child.Action> {
        guard var wrapped = optional else { return .none }
        // Leave nil behind while the child works on the value, so it is uniquely referenced.
        optional = nil
        defer { optional = wrapped }
        return body(&wrapped)
    }
}

/// A parent reducer with a child that runs on one element of a collection; see
/// ``Reducer/forEach(_:action:element:)``.
public struct ForEachReducer<Parent: Reducer, Element: Identifiable & Sendable, Child: Reducer>: Reducer
where Child.State == Element, Element.ID: Sendable {
    let parent: Parent
    let toElements: WritableKeyPath<Parent.State, IdentifiedArray<Element>> & Sendable
    let toElementAction: ActionPath<Parent.Action, (Element.ID, Child.Action)>
    let element: Child

    /// Runs the element's reducer (when the element is present), then the parent.
    public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action> {
        var elementEffect = Effect<Parent.Action>.none
        if let (id, elementAction) = toElementAction.extract(action) {
            let effect = state[keyPath: toElements].modify(id: id) { element in
                self.element.reduce(into: &element, action: elementAction)
            }
            if let effect {
                let embed = toElementAction.embed
                elementEffect = effect.map { embed((id, $0)) }
            } else {
                elementEffect = .diagnostic(.missingChild(action: action, child: "\(toElements)[id: \(id)]"))
            }
        }
        return elementEffect.merge(with: parent.reduce(into: &state, action: action))
    }
}
