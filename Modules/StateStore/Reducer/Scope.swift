/// Runs a child feature's reducer on part of a parent's state, for the parent's actions that
/// carry a child action.
public struct Scope<ParentState: Sendable, ParentAction: Sendable, Child: Reducer>: Reducer {
    // Inlinable, so that an app's composition runs code specialised for its types.
    @usableFromInline let toChildState: WritableKeyPath<ParentState, Child.State> & Sendable
    /// Where the child's state lies in the parent's, when it is a stored property there.
    @usableFromInline let childOffset: Int?
    @usableFromInline let toChildAction: ActionPath<ParentAction, Child.Action>
    @usableFromInline let child: Child

    /// Runs the element's reducer (when the element is present), then the parent; cancels the
    /// effects of the elements that went away.
    @inlinable
    public init<ChildState, ChildAction>(
        state: WritableKeyPath<ParentState, ChildState> & Sendable,
        action: ActionPath<ParentAction, ChildAction>,
        @ReducerBuilder<ChildState, ChildAction> child: () -> Child
    ) where ChildState == Child.State, ChildAction == Child.Action {
        toChildState = state
        childOffset = MemoryLayout<ParentState>.offset(of: state)
        toChildAction = action
        self.child = child()
    }

    /// Runs the child on its part of the state when the action is one of the child's.
    @inlinable
    public func reduce(into state: inout ParentState, action: ParentAction) -> Effect<ParentAction> {
        guard let childAction = toChildAction.extract(action) else { return .none }
        return modifyInPlace(&state, toChildState, offset: childOffset) { Self.run(child, on: &$0, childAction) }
            .map(toChildAction.embed)
    }

    /// The child reducer on its state, borrowed: called on `self.child` inside the access to the
    /// state, the compiler copied the whole reducer first.
    @inlinable
    static func run(_ child: borrowing Child, on state: inout Child.State, _ action: Child.Action) -> Effect<Child.Action> {
        child.reduce(into: &state, action: action)
    }
}

/// `body` on the part of `root` that `path` leads to, in place: at `offset` when the part is a
/// stored property there, else through the key path.
@inlinable
func modifyInPlace<Root, Value, Result>(
    _ root: inout Root, _ path: WritableKeyPath<Root, Value>, offset: Int?, _ body: (inout Value) -> Result
) -> Result {
    guard let offset else { return body(&root[keyPath: path]) }
    // Sound: `offset` is where the stored property `path` lies in `Root` (MemoryLayout said so),
    // and `root` is exclusively ours for the closure.
    return withUnsafeMutablePointer(to: &root) { root in
        body(&(UnsafeMutableRawPointer(root) + offset).assumingMemoryBound(to: Value.self).pointee)
    }
}

extension Reducer {
    /// Runs `child` on an optional part of the state while it is present, before this reducer.
    public func ifLet<ChildState, ChildAction, Child: Reducer>(
        _ state: WritableKeyPath<State, ChildState?> & Sendable,
        action: ActionPath<Action, ChildAction>,
        absentReason: String? = nil,
        @ReducerBuilder<ChildState, ChildAction> then child: () -> Child
    ) -> IfLetReducer<Self, Child> where ChildState == Child.State, ChildAction == Child.Action {
        IfLetReducer(
            parent: self, toChildState: state, childOffset: MemoryLayout<State>.offset(of: state), toChildAction: action,
            absentReason: absentReason,
            effects: EffectID(ChildEffects(path: ObjectIdentifier(state))), child: child())
    }

    /// Runs `child` on the state while it is in one case of an enum, before this reducer (what
    /// TCA calls `ifCaseLet`): `state` extracts the case's value and embeds a changed one back.
    @inlinable
    public func ifCaseLet<CaseState, CaseAction, Child: Reducer>(
        _ state: CasePath<State, CaseState>,
        action: ActionPath<Action, CaseAction>,
        reportsOtherCases: Bool = true,
        absentReason: String? = nil,
        @ReducerBuilder<CaseState, CaseAction> then child: () -> Child
    ) -> IfCaseLetReducer<Self, Child> where CaseState == Child.State, CaseAction == Child.Action {
        ifCaseLet(\.self, case: state, action: action, reportsOtherCases: reportsOtherCases, absentReason: absentReason, then: child)
    }

    /// Runs `child` while the enum stored at `state` is in the case `case`, before this reducer.
    @inlinable
    public func ifCaseLet<Enum: Sendable, CaseState, CaseAction, Child: Reducer>(
        _ state: WritableKeyPath<State, Enum> & Sendable,
        case toCase: CasePath<Enum, CaseState>,
        action: ActionPath<Action, CaseAction>,
        reportsOtherCases: Bool = true,
        absentReason: String? = nil,
        @ReducerBuilder<CaseState, CaseAction> then child: () -> Child
    ) -> IfCaseLetReducer<Self, Child> where CaseState == Child.State, CaseAction == Child.Action {
        let offset = MemoryLayout<State>.offset(of: state)
        return IfCaseLetReducer(
            parent: self,
            isInCase: { whole in modifyInPlace(&whole, state, offset: offset) { toCase.matches($0) } },
            inCase: { whole, body in
                modifyInPlace(&whole, state, offset: offset) { value in IfCaseLetReducer<Self, Child>.reduce(&value, in: toCase, body) }
            },
            toChildAction: action, reportsOtherCases: reportsOtherCases, absentReason: absentReason,
            effects: EffectID(CaseEffects(reducer: ObjectIdentifier(IfCaseLetReducer<Self, Child>.self), path: state)),
            child: child())
    }

    /// Runs `element` on the element of a collection that an action addresses by id, before this
    /// reducer.
    public func forEach<Element: Identifiable & Sendable, ElementAction, Child: Reducer>(
        _ elements: WritableKeyPath<State, IdentifiedArray<Element>> & Sendable,
        action: ActionPath<Action, (Element.ID, ElementAction)>,
        @ReducerBuilder<Element, ElementAction> element: () -> Child
    ) -> ForEachReducer<Self, Element, Child>
    where Child.State == Element, Child.Action == ElementAction, Element.ID: Sendable {
        ForEachReducer(parent: self, toElements: elements, toElementAction: action, element: element())
    }
}

/// A parent reducer with a child that runs on optional state; see ``Reducer/ifLet(_:action:absentReason:then:)``.
public struct IfLetReducer<Parent: Reducer, Child: Reducer>: Reducer {
    @usableFromInline let parent: Parent
    @usableFromInline let toChildState: WritableKeyPath<Parent.State, Child.State?> & Sendable
    /// Where the child's state lies in the parent's, when it is a stored property there.
    @usableFromInline let childOffset: Int?
    @usableFromInline let toChildAction: ActionPath<Parent.Action, Child.Action>
    @usableFromInline let absentReason: String?
    /// Identifies the child's effects, made once.
    @usableFromInline let effects: EffectID
    @usableFromInline let child: Child

    /// Runs the child (when its state is present and the action is its), then the parent.
    @inlinable
    public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action> {
        let childAction = toChildAction.extract(action)
        var childEffect = Effect<Parent.Action>.none
        // In place: reading the optional through the key path would copy the child's state.
        let wasPresent = modifyInPlace(&state, toChildState, offset: childOffset) { optional -> Bool in
            guard optional != nil else { return false }
            if let childAction {
                childEffect = modifyWrapped(&optional) { childState in child.reduce(into: &childState, action: childAction) }
                    .map(toChildAction.embed)
                    .cancellable(effects)
            }
            return true
        }
        if childAction != nil, !wasPresent {
            childEffect = .diagnostic(.missingChild(action: action, reason: absentReason) { [toChildState] in KeyPathNames.name(of: toChildState) })
        }
        let parentEffect = parent.reduce(into: &state, action: action)
        guard wasPresent, modifyInPlace(&state, toChildState, offset: childOffset, { $0 == nil }) else {
            return childEffect.merge(with: parentEffect)
        }
        return .merge(childEffect, parentEffect, Effect(.cancel(effects)))
    }

    @inlinable
    func modifyWrapped(
        _ optional: inout Child.State?, _ body: (inout Child.State) -> Effect<Child.Action>
    ) -> Effect<Child.Action> {
        guard optional != nil else { return .none }
        // In place, where taking the value out and putting it back would move all of its bytes
        // twice. Sound: an optional (one payload) keeps a present payload's bytes unchanged at
        // its start, and a reducer leaves them a valid payload.
        return withUnsafeMutablePointer(to: &optional) { optional in
            optional.withMemoryRebound(to: Child.State.self, capacity: 1) { body(&$0.pointee) }
        }
    }
}

/// A parent reducer with a child that runs while the state (or an enum in it) is in one case.
public struct IfCaseLetReducer<Parent: Reducer, Child: Reducer>: Reducer {
    @usableFromInline let parent: Parent
    /// Whether the state is in the child's case, read in place.
    @usableFromInline let isInCase: @Sendable (inout Parent.State) -> Bool
    /// Runs its closure on the value of the child's case in place; `nil` when in another case.
    @usableFromInline let inCase: @Sendable (inout Parent.State, (inout Child.State) -> Effect<Child.Action>) -> Effect<Child.Action>?
    @usableFromInline let toChildAction: ActionPath<Parent.Action, Child.Action>
    @usableFromInline let reportsOtherCases: Bool
    @usableFromInline let absentReason: String?
    /// Identifies the child's effects, made once.
    @usableFromInline let effects: EffectID
    @usableFromInline let child: Child

    @usableFromInline
    init(
        parent: Parent, isInCase: @escaping @Sendable (inout Parent.State) -> Bool,
        inCase: @escaping @Sendable (inout Parent.State, (inout Child.State) -> Effect<Child.Action>) -> Effect<Child.Action>?,
        toChildAction: ActionPath<Parent.Action, Child.Action>, reportsOtherCases: Bool, absentReason: String?, effects: EffectID,
        child: Child
    ) {
        self.parent = parent
        self.isInCase = isInCase
        self.inCase = inCase
        self.toChildAction = toChildAction
        self.reportsOtherCases = reportsOtherCases
        self.absentReason = absentReason
        self.effects = effects
        self.child = child
    }

    /// Runs the child (when the state is in its case and the action is its), then the parent.
    @inlinable
    public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action> {
        var wasInCase = false
        var childEffect = Effect<Parent.Action>.none
        if let childAction = toChildAction.extract(action) {
            if let effect = inCase(&state, { child.reduce(into: &$0, action: childAction) }) {
                wasInCase = true
                childEffect = effect.map(toChildAction.embed).cancellable(effects)
            } else if reportsOtherCases {
                childEffect = .diagnostic(.missingChild(action: action, reason: absentReason) { "\(Child.State.self)" })
            }
        } else {
            wasInCase = isInCase(&state)
        }
        let parentEffect = parent.reduce(into: &state, action: action)
        guard wasInCase, !isInCase(&state) else { return childEffect.merge(with: parentEffect) }
        return .merge(childEffect, parentEffect, Effect(.cancel(effects)))
    }

    /// `body` on the value of `value`'s case `path`, or `nil` when `value` is in another case.
    @inlinable
    static func reduce<Enum>(
        _ value: inout Enum, in path: CasePath<Enum, Child.State>, _ body: (inout Child.State) -> Effect<Child.Action>
    ) -> Effect<Child.Action>? {
        guard path.matches(value) else { return nil }
        if let modify = path.modify {
            var effect = Effect<Child.Action>.none
            modify(&value) { effect = body(&$0) }
            return effect
        }
        // Sound: the pointer is `value`'s for the whole closure, and it is initialized again
        // (with the old or the changed value) on every path out of it.
        return withUnsafeMutablePointer(to: &value) { pointer in
            let whole = pointer.move()
            guard var caseState = path.extract(whole) else {
                pointer.initialize(to: whole)
                return nil
            }
            _ = consume whole
            let effect = body(&caseState)
            pointer.initialize(to: path.embed(caseState))
            return effect
        }
    }
}

/// Identifies the effects of the child an ``IfCaseLetReducer`` runs, by value: a reducer built in
/// generic code gets a new key path object each time it is built.
@usableFromInline
struct CaseEffects: Hashable, Sendable {
    @usableFromInline let reducer: ObjectIdentifier
    @usableFromInline let path: AnyKeyPath & Sendable
    /// The key path's hash, taken once: hashing a key path walks its components.
    @usableFromInline let pathHash: Int

    @inlinable
    init(reducer: ObjectIdentifier, path: AnyKeyPath & Sendable) {
        self.reducer = reducer
        self.path = path
        pathHash = path.hashValue
    }

    @inlinable
    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.reducer == rhs.reducer && lhs.pathHash == rhs.pathHash && lhs.path == rhs.path
    }

    @inlinable
    func hash(into hasher: inout Hasher) {
        hasher.combine(reducer)
        hasher.combine(pathHash)
    }
}

/// A parent reducer with a child that runs on one element of a collection.
public struct ForEachReducer<Parent: Reducer, Element: Identifiable & Sendable, Child: Reducer>: Reducer
where Child.State == Element, Element.ID: Sendable {
    @usableFromInline let parent: Parent
    @usableFromInline let toElements: WritableKeyPath<Parent.State, IdentifiedArray<Element>> & Sendable
    @usableFromInline let toElementAction: ActionPath<Parent.Action, (Element.ID, Child.Action)>
    @usableFromInline let element: Child

    /// Runs the element's reducer (when the element is present), then the parent.
    @inlinable
    public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action> {
        // A copy costs O(1): the collection is persistent.
        let before = state[keyPath: toElements]
        var elementEffect = Effect<Parent.Action>.none
        if let (id, elementAction) = toElementAction.extract(action) {
            let effect = state[keyPath: toElements].modify(id: id) { element in
                self.element.reduce(into: &element, action: elementAction)
            }
            if let effect {
                let embed = toElementAction.embed
                elementEffect = effect.map { embed((id, $0)) }.cancellable(id: ChildEffects(path: ObjectIdentifier(toElements), id: id))
            } else {
                elementEffect = .diagnostic(.missingChild(action: action, reason: nil) { [toElements] in "\(KeyPathNames.name(of: toElements))[id: \(id)]" })
            }
        }
        let effect = elementEffect.merge(with: parent.reduce(into: &state, action: action))
        let after = state[keyPath: toElements]
        guard after.version != before.version else { return effect }
        // The elements that may have gone: the changed ones, told by the collection's change
        // log when it reaches back that far, else all of the earlier ones.
        let candidates = after.changedIDs(since: before.version) ?? before.ids
        let removed = candidates.filter { after[id: $0] == nil && before[id: $0] != nil }
        guard !removed.isEmpty else { return effect }
        return .merge([effect] + removed.map { .cancel(id: ChildEffects(path: ObjectIdentifier(toElements), id: $0)) })
    }
}

/// Identifies the effects of a child that ``IfLetReducer`` or ``ForEachReducer`` runs, by the key
/// path's object, which hashes at once where a key path walks its components.
@usableFromInline
struct ChildEffects<Path: Hashable & Sendable, ID: Hashable & Sendable>: Hashable, Sendable {
    @usableFromInline let path: Path
    @usableFromInline let id: ID

    @inlinable
    init(path: Path, id: ID) {
        self.path = path
        self.id = id
    }
}

extension ChildEffects where ID == Bool {
    @inlinable
    init(path: Path) {
        self.init(path: path, id: true)
    }
}

/// Key paths as diagnostics name them (`\AppState.detail`), each described once: describing a
/// key path reflects over its root type, which costs more than the action it reports on.
@usableFromInline
enum KeyPathNames {
    /// Each key path kept with its name, so that its identifier is never another's.
    private static let names = Locked<[ObjectIdentifier: (keyPath: AnyKeyPath, name: String)]>([:])

    @usableFromInline
    static func name(of keyPath: AnyKeyPath) -> String {
        let id = ObjectIdentifier(keyPath)
        if let known = names.withLock({ $0[id] }) { return known.name }
        let name = "\(keyPath)"
        names.withLock { $0[id] = (keyPath, name) }
        return name
    }
}
