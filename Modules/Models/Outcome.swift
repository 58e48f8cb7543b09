/// The result of a client call as an action carries it: a value or an ``AppError``.
public enum Outcome<Value: Sendable>: Sendable {
    /// The call returned `Value`.
    case success(Value)
    /// The call failed.
    case failure(AppError)

    /// Runs `operation` and captures its value or error.
    public init(catching operation: () async throws(AppError) -> Value) async {
        do {
            self = .success(try await operation())
        } catch {
            self = .failure(error)
        }
    }

    /// Wraps a `Result`.
    public init(_ result: Result<Value, AppError>) {
        switch result {
        case .success(let value): self = .success(value)
        case .failure(let error): self = .failure(error)
        }
    }

    /// The same outcome as a `Result`.
    public var result: Result<Value, AppError> {
        switch self {
        case .success(let value): .success(value)
        case .failure(let error): .failure(error)
        }
    }

    /// The error, if the call failed.
    public var error: AppError? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

extension Outcome: Equatable where Value: Equatable {}
extension Outcome: Hashable where Value: Hashable {}
extension Outcome: Codable where Value: Codable {
    private enum Key: String, CodingKey {
        case success, failure
    }

    /// Decodes `{"success": value}` or `{"failure": error}`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        if container.contains(.success) {
            self = .success(try container.decode(Value.self, forKey: .success))
        } else {
            self = .failure(try container.decode(AppError.self, forKey: .failure))
        }
    }

    /// Encodes `{"success": value}` or `{"failure": error}`, without the `_0` wrapper synthesized
    /// coding would add: responses are journaled, and replaying a journal is mostly decoding.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        switch self {
        case .success(let value): try container.encode(value, forKey: .success)
        case .failure(let error): try container.encode(error, forKey: .failure)
        }
    }
}

/// The value of a call that returns nothing but may fail, so it can travel in an ``Outcome``.
public struct Done: Hashable, Sendable, Codable {
    /// The one value.
    public init() {}
}
