/// How a parent's action embeds a child's action, and how to get it back out.
public struct ActionPath<Root: Sendable, Value: Sendable>: Sendable {
    /// Wraps a child action into the parent's.
    public let embed: @Sendable (Value) -> Root
    /// Returns the child action a parent action carries, or `nil` for other actions.
    public let extract: @Sendable (Root) -> Value?
    /// Whether a value is in the path's case, told without extracting (copying) what it carries.
    public let matches: @Sendable (Root) -> Bool
    /// Runs its closure on the value of a root in the path's case, in place (nothing when in
    /// another case), when the path was given one; see ``init(embed:extract:matches:modify:)``.
    public let modify: (@Sendable (inout Root, (inout Value) -> Void) -> Void)?
    /// The path's identity, shared by its copies: a store scoped twice through one path (a
    /// `static let`) with one state key path gives the same child store while it lives.
    @usableFromInline let token = ActionPathToken()

    /// Creates a path from an embedding (usually an enum case) and its inverse.
    public init(
        embed: @escaping @Sendable (Value) -> Root, extract: @escaping @Sendable (Root) -> Value?,
        matches: (@Sendable (Root) -> Bool)? = nil
    ) {
        self.embed = embed
        self.extract = extract
        self.matches = matches ?? { extract($0) != nil }
        modify = nil
    }

    /// Creates a path to a case of a state enum whose value `modify` changes in place, so the value
    /// is not copied out and embedded back at every action.
    public init(
        embed: @escaping @Sendable (Value) -> Root, extract: @escaping @Sendable (Root) -> Value?,
        matches: @escaping @Sendable (Root) -> Bool, modify: @escaping @Sendable (inout Root, (inout Value) -> Void) -> Void
    ) {
        self.embed = embed
        self.extract = extract
        self.matches = matches
        self.modify = modify
    }

    /// Creates a path to an action addressed to one element of a collection, from a case with
    /// two associated values: the element's id and its action.
    public init<ID: Sendable, Child: Sendable>(
        embed: @escaping @Sendable (ID, Child) -> Root,
        extract: @escaping @Sendable (Root) -> (ID, Child)?
    ) where Value == (ID, Child) {
        self.embed = { embed($0.0, $0.1) }
        self.extract = extract
        matches = { extract($0) != nil }
        modify = nil
    }
}

/// How an enum embeds the value of one of its cases, and how to get it back out: an
/// ``ActionPath`` to a case of any enum, a state's as well as an action's.
public typealias CasePath<Root: Sendable, Value: Sendable> = ActionPath<Root, Value>

extension ActionPath where Root == Value {
    /// The path from a value to itself: every value is "in" it.
    public static var identity: ActionPath { ActionPath(embed: { $0 }, extract: { $0 }, matches: { _ in true }) }
}

@usableFromInline
final class ActionPathToken: Sendable {
    @usableFromInline
    init() {}
}
