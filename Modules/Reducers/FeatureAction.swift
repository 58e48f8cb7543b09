import Models

/// What the app asks of every feature's actions, answered by each feature beside its reducer.
public protocol FeatureAction: Sendable {
    /// The error of the client call the action reports as failed; `nil` for any other action.
    var failure: AppError? { get }
    /// Whether the action holds a secret (a typed password), which journals store redacted.
    var carriesSecret: Bool { get }
    /// The bytes of data it carries that grow with the user's data (text, lists of notes or
    /// posts), for a history's memory budget.
    var payloadBytes: Int { get }
}
