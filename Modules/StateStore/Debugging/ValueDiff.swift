/// The differences between two values of the same type, found with `Mirror`.
///
/// ```swift
/// let diff = ValueDiff(old: AppState(count: 1), new: AppState(count: 2))
/// print(diff.description)
/// // .count
/// //   − 1
/// //   + 2
/// ```
///
/// Only what differs is listed, each change under the path that leads to it, so a failure on a
/// state with 100,000 notes shows the one note that changed. Secrets are redacted as in
/// ``ValueRenderer``.
public struct ValueDiff: Sendable, Equatable, CustomStringConvertible {
    /// One difference: where it is, and both sides rendered on one line.
    public struct Change: Sendable, Equatable {
        /// Where in the value the difference is, such as `.notes[3].text`; empty for the root.
        public var path: String
        /// The old (or expected) side, or `nil` when the element is only on the new side.
        public var old: String?
        /// The new (or actual) side, or `nil` when the element is only on the old side.
        public var new: String?

        /// A change at `path` from `old` to `new`.
        public init(path: String, old: String?, new: String?) {
            self.path = path
            self.old = old
            self.new = new
        }
    }

    /// Every difference, in the order the values were walked.
    public let changes: [Change]

    /// Compares `old` with `new`.
    public init(old: Any, new: Any, redaction: Redaction = .default) {
        var changes: [Change] = []
        Self.compare(old, new, path: "", label: nil, redaction: redaction, into: &changes)
        self.changes = changes
    }

    /// Whether the two values render identically.
    public var isEmpty: Bool { changes.isEmpty }

    /// The changes, one path per line followed by `− old` and `+ new` lines.
    public var description: String {
        render(oldMarker: "−", newMarker: "+")
    }

    /// The changes with custom markers, such as `− expected` / `+ actual` in a test failure.
    public func render(oldMarker: String, newMarker: String) -> String {
        var lines: [String] = []
        for change in changes {
            lines.append(change.path.isEmpty ? "(root)" : change.path)
            if let old = change.old { lines.append("  \(oldMarker) \(old)") }
            if let new = change.new { lines.append("  \(newMarker) \(new)") }
        }
        return lines.joined(separator: "\n")
    }

    private static func compare(
        _ old: Any, _ new: Any, path: String, label: String?, redaction: Redaction, into changes: inout [Change]
    ) {
        // Compare everything, secrets included, but show only what the redaction allows.
        guard ValueRenderer.oneLine(old, redaction: .revealing) != ValueRenderer.oneLine(new, redaction: .revealing) else {
            return
        }
        let oldLine = ValueRenderer.oneLine(old, labelled: label, redaction: redaction)
        let newLine = ValueRenderer.oneLine(new, labelled: label, redaction: redaction)
        if oldLine == Redaction.placeholder || newLine == Redaction.placeholder {
            changes.append(Change(path: path, old: oldLine, new: newLine))
            return
        }

        let oldNode = ValueRenderer.Node(old)
        let newNode = ValueRenderer.Node(new)
        switch (oldNode.kind, newNode.kind) {
        case (.optional(.some(let oldWrapped)), .optional(.some(let newWrapped))):
            compare(oldWrapped, newWrapped, path: path, label: label, redaction: redaction, into: &changes)

        case (.enumCase(let oldName, let oldPayload?), .enumCase(let newName, let newPayload?)) where oldName == newName:
            compare(oldPayload, newPayload, path: path + ".\(oldName)", label: oldName, redaction: redaction, into: &changes)

        case (.record(let oldChildren), .record(let newChildren))
        where oldNode.typeName == newNode.typeName && oldChildren.count == newChildren.count:
            for (oldChild, newChild) in zip(oldChildren, newChildren) {
                let name = oldChild.label.map { $0.hasPrefix(".") ? $0 : ".\($0)" } ?? ""
                compare(oldChild.value, newChild.value, path: path + name, label: oldChild.label,
                    redaction: redaction, into: &changes)
            }

        case (.sequence(let oldElements), .sequence(let newElements)):
            for index in 0..<max(oldElements.count, newElements.count) {
                let elementPath = path + "[\(index)]"
                switch (index < oldElements.count, index < newElements.count) {
                case (true, true):
                    compare(oldElements[index], newElements[index], path: elementPath, label: label,
                        redaction: redaction, into: &changes)
                case (true, false):
                    changes.append(Change(path: elementPath,
                        old: ValueRenderer.oneLine(oldElements[index], labelled: label, redaction: redaction), new: nil))
                case (false, true):
                    changes.append(Change(path: elementPath,
                        old: nil, new: ValueRenderer.oneLine(newElements[index], labelled: label, redaction: redaction)))
                case (false, false):
                    break
                }
            }

        case (.dictionary(let oldPairs), .dictionary(let newPairs)):
            let oldByKey = Dictionary(oldPairs.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
            let newByKey = Dictionary(newPairs.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
            for key in Set(oldByKey.keys).union(newByKey.keys).sorted() {
                let keyPath = path + "[\(key)]"
                switch (oldByKey[key], newByKey[key]) {
                case (let oldValue?, let newValue?):
                    compare(oldValue, newValue, path: keyPath, label: key, redaction: redaction, into: &changes)
                case (let oldValue?, nil):
                    changes.append(Change(path: keyPath,
                        old: ValueRenderer.oneLine(oldValue, labelled: key, redaction: redaction), new: nil))
                case (nil, let newValue?):
                    changes.append(Change(path: keyPath,
                        old: nil, new: ValueRenderer.oneLine(newValue, labelled: key, redaction: redaction)))
                case (nil, nil):
                    break
                }
            }

        default:
            changes.append(Change(path: path, old: oldLine, new: newLine))
        }
    }
}

extension ValueRenderer {
    /// Renders a value found under `label`, hiding it when the label marks a secret.
    static func oneLine(_ value: Any, labelled label: String?, redaction: Redaction) -> String {
        var output = ""
        render(value, label: label, redaction: redaction, into: &output)
        return output
    }
}
