/// A marker for values whose contents must never appear in a log, a diagnostic or a diff.
public protocol Secret {}

/// Which values ``ValueRenderer`` hides.
public struct Redaction: Sendable, Hashable {
    /// Lowercased fragments of labels whose values are hidden.
    public var labelFragments: [String]
    /// Shows everything, ``Secret`` values included; only for comparing values, never for output.
    var revealsEverything = false

    /// Hides values under labels containing any of `labelFragments`.
    public init(labelFragments: [String]) {
        self.labelFragments = labelFragments.map { $0.lowercased() }
    }

    static let revealing: Redaction = {
        var redaction = Redaction(labelFragments: [])
        redaction.revealsEverything = true
        return redaction
    }()

    /// Hides passwords, tokens and secrets.
    public static let `default` = Redaction(labelFragments: ["password", "token", "secret"])

    /// Hides only values that conform to ``Secret``.
    public static let secretTypesOnly = Redaction(labelFragments: [])

    /// The text shown instead of a hidden value.
    public static let placeholder = "<redacted>"

    func hides(label: String?) -> Bool {
        guard let label, !labelFragments.isEmpty else { return false }
        let lowered = label.lowercased()
        return labelFragments.contains { lowered.contains($0) }
    }
}

/// Renders any value as readable Swift-like text, with secrets redacted.
public enum ValueRenderer {
    /// The value on one line.
    public static func oneLine(_ value: Any, redaction: Redaction = .default, limit: Int = 2_000, presentation: Presentation = .swift) -> String {
        oneLine(value, labelled: nil, redaction: redaction, presentation: presentation, limit: limit)
    }

    /// How leaf values are worded beyond the renderer's own rules.
    public struct Presentation: Sendable {
        /// The text `value` shows as, or `nil` to render it as usual.
        public let leaf: @Sendable (Any) -> String?
        /// Whether an enum case is shown with its type's name (`Action.inserted`) or without
        /// (`.inserted`, as Swift reads where the type is known).
        public let namesCaseTypes: Bool

        /// A presentation with `leaf`'s words.
        public init(namesCaseTypes: Bool = true, leaf: @escaping @Sendable (Any) -> String?) {
            self.namesCaseTypes = namesCaseTypes
            self.leaf = leaf
        }

        /// Swift-like text: every value by the renderer's own rules.
        public static let swift = Presentation { _ in nil }
    }

    static func render(_ value: Any, label: String?, redaction: Redaction, presentation: Presentation = .swift, limit: Int = .max, into output: inout String) {
        guard output.utf8.count <= limit else { return }
        if !redaction.revealsEverything, value is any Secret || redaction.hides(label: label) {
            output += Redaction.placeholder
            return
        }
        let node = Node(value, presentation: presentation)
        switch node.kind {
        case .leaf(let text):
            output += text
        case .optional(nil):
            output += "nil"
        case .optional(.some(let wrapped)):
            render(wrapped, label: label, redaction: redaction, presentation: presentation, limit: limit, into: &output)
        case .enumCase(let name, let payload):
            output += presentation.namesCaseTypes ? "\(node.typeName).\(name)" : ".\(name)"
            guard let payload else { return }
            if !redaction.revealsEverything, redaction.hides(label: name) {
                output += "(\(Redaction.placeholder))"
            } else if Mirror(reflecting: payload).displayStyle == .tuple {
                render(payload, label: nil, redaction: redaction, presentation: presentation, limit: limit, into: &output)
            } else {
                output += "("
                render(payload, label: nil, redaction: redaction, presentation: presentation, limit: limit, into: &output)
                output += ")"
            }
        case .record(let children):
            output += node.isTuple ? "(" : "\(node.typeName)("
            for (index, child) in children.enumerated() {
                if index > 0 { output += ", " }
                if let childLabel = child.label, !childLabel.hasPrefix(".") { output += "\(childLabel): " }
                render(child.value, label: child.label, redaction: redaction, presentation: presentation, limit: limit, into: &output)
            }
            output += ")"
        case .sequence(let elements):
            output += "["
            for (index, element) in elements.enumerated() {
                if output.utf8.count > limit {
                    output += "… \(elements.count - index) more"
                    break
                }
                if index > 0 { output += ", " }
                render(element.value, label: label, redaction: redaction, presentation: presentation, limit: limit, into: &output)
            }
            output += "]"
        case .dictionary(let pairs):
            if pairs.isEmpty {
                output += "[:]"
                return
            }
            output += "["
            for (index, pair) in pairs.enumerated() {
                if index > 0 { output += ", " }
                output += pair.key
                output += ": "
                render(pair.value, label: pair.key, redaction: redaction, presentation: presentation, limit: limit, into: &output)
            }
            output += "]"
        }
    }

    struct Node {
        enum Kind {
            case leaf(String)
            case optional(Any?)
            case enumCase(name: String, payload: Any?)
            case record([Mirror.Child])
            /// The elements, read lazily: rendering a long collection stops at its limit.
            case sequence(Mirror.Children)
            case dictionary([(key: String, value: Any)])
        }

        let kind: Kind
        let typeName: String
        let isTuple: Bool

        init(_ value: Any, presentation: Presentation = .swift) {
            let mirror = Mirror(reflecting: value)
            typeName = Self.shortTypeName(of: value)
            isTuple = mirror.displayStyle == .tuple
            // (An optional is unwrapped first: `is` and `as?` would see through it, and show
            // `Optional(1)` where `1` is meant.)
            if mirror.displayStyle != .optional, let text = presentation.leaf(value) ?? Self.leafText(value) {
                kind = .leaf(text)
                return
            }
            switch mirror.displayStyle {
            case .optional:
                kind = .optional(mirror.children.first?.value)
            case .enum:
                if let child = mirror.children.first {
                    kind = .enumCase(name: child.label ?? "\(value)", payload: child.value)
                } else {
                    kind = .enumCase(name: "\(value)", payload: nil)
                }
            case .collection, .set:
                kind = .sequence(mirror.children)
            case .dictionary:
                let pairs: [(key: String, value: Any)] = mirror.children.map { child in
                    let pair = Mirror(reflecting: child.value).children.map(\.value)
                    let key = pair.first.map { ValueRenderer.oneLine($0, redaction: .secretTypesOnly) } ?? "?"
                    return (key, pair.count > 1 ? pair[1] : ())
                }
                kind = .dictionary(pairs.sorted { $0.key < $1.key })
            case .struct, .class, .tuple:
                kind =
                    mirror.children.isEmpty
                    ? .leaf(mirror.displayStyle == .tuple ? "()" : "\(typeName)()")
                    : .record(Array(mirror.children))
            default:
                kind = .leaf(String(describing: value))
            }
        }

        private static func leafText(_ value: Any) -> String? {
            switch value {
            case let string as String:
                return quoted(string)
            case let substring as Substring:
                return quoted(String(substring))
            case let character as Character:
                return quoted(String(character))
            case is any Numeric, is Bool:
                return String(describing: value)
            default:
                let mirror = Mirror(reflecting: value)
                // Types that hide their structure (Date, URL, redacted wrappers) speak for themselves.
                if mirror.children.isEmpty, mirror.displayStyle != .enum, mirror.displayStyle != .optional,
                    mirror.displayStyle != .collection, mirror.displayStyle != .dictionary, mirror.displayStyle != .set
                {
                    if value is any CustomStringConvertible || value is any CustomDebugStringConvertible {
                        return String(describing: value)
                    }
                }
                return nil
            }
        }

        static func quoted(_ string: String) -> String {
            var result = "\""
            for scalar in string.unicodeScalars {
                switch scalar {
                case "\"": result += "\\\""
                case "\\": result += "\\\\"
                case "\n": result += "\\n"
                case "\t": result += "\\t"
                case "\r": result += "\\r"
                default:
                    if scalar.value < 0x20 {
                        result += "\\u{\(String(scalar.value, radix: 16))}"
                    } else {
                        result.unicodeScalars.append(scalar)
                    }
                }
            }
            return result + "\""
        }

        private static func shortTypeName(of value: Any) -> String {
            var name = String(describing: type(of: value))
            // `Module.Outer.Inner<Argument>` reads as `Outer.Inner` in messages.
            if let genericStart = name.firstIndex(of: "<") { name = String(name[..<genericStart]) }
            return name
        }
    }
}
