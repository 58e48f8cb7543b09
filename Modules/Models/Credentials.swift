/// What a person signs in or signs up with.
public struct Credentials: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The username as typed.
    public var username: Username
    /// The password as typed; redacted wherever it is printed or encoded.
    public var password: Password

    /// Pairs a username and a password.
    public init(username: Username, password: Password) {
        self.username = username
        self.password = password
    }

    /// Whether both the username and the password are valid.
    public var isValid: Bool { username.isValid && password.isValid }

    /// What is wrong with the credentials, one sentence per field, or `nil` when they are valid.
    public var problem: String? {
        let problems = [username.problem, password.problem].compactMap { $0 }
        return problems.isEmpty ? nil : problems.joined(separator: " ")
    }

    /// The username and a redacted password.
    public var description: String { "Credentials(username: \(username), password: \(password))" }
}
