/// The differences between two values of the same type, found with `Mirror`.
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

    /// Compares `old` with `new`, showing values as `presentation` words them.
    public init(old: Any, new: Any, redaction: Redaction = .default, presentation: ValueRenderer.Presentation = .swift) {
        var changes: [Change] = []
        Self.compare(old, new, path: "", label: nil, redaction: redaction, presentation: presentation, into: &changes)
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
        _ old: Any, _ new: Any, path: String, label: String?, redaction: Redaction, presentation: ValueRenderer.Presentation, into changes: inout [Change]
    ) {
        // Compare everything, secrets included, but show only what the redaction allows. Values
        // that can say whether they are equal are asked first: it is cheaper than rendering them,
        // and a persistent collection answers for the parts two versions share without looking.
        if let equal = equalIfEquatable(old, new) {
            if equal { return }
        } else if ValueRenderer.oneLine(old, redaction: .revealing, limit: .max) == ValueRenderer.oneLine(new, redaction: .revealing, limit: .max) {
            return
        }
        // Rendered only where a change is listed: rendering a ten-thousand-note state at every
        // level of the walk would cost more than the walk.
        func change() -> Change {
            Change(
                path: path, old: ValueRenderer.oneLine(old, labelled: label, redaction: redaction, presentation: presentation),
                new: ValueRenderer.oneLine(new, labelled: label, redaction: redaction, presentation: presentation))
        }
        if !redaction.revealsEverything, old is any Secret || new is any Secret || redaction.hides(label: label) {
            changes.append(change())
            return
        }

        let oldNode = ValueRenderer.Node(old, presentation: presentation)
        let newNode = ValueRenderer.Node(new, presentation: presentation)
        switch (oldNode.kind, newNode.kind) {
        case (.optional(.some(let oldWrapped)), .optional(.some(let newWrapped))):
            compare(oldWrapped, newWrapped, path: path, label: label, redaction: redaction, presentation: presentation, into: &changes)

        case (.enumCase(let oldName, let oldPayload?), .enumCase(let newName, let newPayload?)) where oldName == newName:
            compare(oldPayload, newPayload, path: path + ".\(oldName)", label: oldName, redaction: redaction, presentation: presentation, into: &changes)

        case (.record(let oldChildren), .record(let newChildren))
        where oldNode.typeName == newNode.typeName && oldChildren.count == newChildren.count:
            for (oldChild, newChild) in zip(oldChildren, newChildren) {
                let name = oldChild.label.map { $0.hasPrefix(".") ? $0 : ".\($0)" } ?? ""
                compare(
                    oldChild.value, newChild.value, path: path + name, label: oldChild.label,
                    redaction: redaction, presentation: presentation, into: &changes)
            }

        case (.sequence(let oldChildren), .sequence(let newChildren)):
            let oldElements = oldChildren.map(\.value)
            let newElements = newChildren.map(\.value)
            if let oldIDs = identities(of: oldElements), let newIDs = identities(of: newElements) {
                compareByID(
                    oldElements, oldIDs, newElements, newIDs, path: path, label: label, redaction: redaction, presentation: presentation, into: &changes)
                return
            }
            for index in 0..<max(oldElements.count, newElements.count) {
                let elementPath = path + "[\(index)]"
                switch (index < oldElements.count, index < newElements.count) {
                case (true, true):
                    compare(
                        oldElements[index], newElements[index], path: elementPath, label: label,
                        redaction: redaction, presentation: presentation, into: &changes)
                case (true, false):
                    changes.append(
                        Change(
                            path: elementPath,
                            old: ValueRenderer.oneLine(oldElements[index], labelled: label, redaction: redaction, presentation: presentation), new: nil))
                case (false, true):
                    changes.append(
                        Change(
                            path: elementPath,
                            old: nil, new: ValueRenderer.oneLine(newElements[index], labelled: label, redaction: redaction, presentation: presentation)))
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
                    compare(oldValue, newValue, path: keyPath, label: key, redaction: redaction, presentation: presentation, into: &changes)
                case (let oldValue?, nil):
                    changes.append(
                        Change(
                            path: keyPath,
                            old: ValueRenderer.oneLine(oldValue, labelled: key, redaction: redaction, presentation: presentation), new: nil))
                case (nil, let newValue?):
                    changes.append(
                        Change(
                            path: keyPath,
                            old: nil, new: ValueRenderer.oneLine(newValue, labelled: key, redaction: redaction, presentation: presentation)))
                case (nil, nil):
                    break
                }
            }

        default:
            changes.append(change())
        }
    }
}

extension ValueDiff {
    private static func equalIfEquatable(_ old: Any, _ new: Any) -> Bool? {
        guard let old = old as? any Equatable else { return nil }
        func isEqual<T: Equatable>(_ old: T) -> Bool? {
            (new as? T).map { $0 == old }
        }
        return isEqual(old)
    }

    /// The ids of `elements` when every one is `Identifiable` and no id repeats; `nil` otherwise.
    private static func identities(of elements: [Any]) -> [AnyHashable]? {
        func id<T: Identifiable>(_ element: T) -> AnyHashable { AnyHashable(element.id) }
        var ids: [AnyHashable] = []
        ids.reserveCapacity(elements.count)
        for element in elements {
            guard let identifiable = element as? any Identifiable else { return nil }
            ids.append(id(identifiable))
        }
        return Set(ids).count == ids.count ? ids : nil
    }

    /// Compares identified elements by id, so one inserted at the top is one change.
    private static func compareByID(
        _ oldElements: [Any], _ oldIDs: [AnyHashable], _ newElements: [Any], _ newIDs: [AnyHashable],
        path: String, label: String?, redaction: Redaction, presentation: ValueRenderer.Presentation, into changes: inout [Change]
    ) {
        let oldByID = Dictionary(uniqueKeysWithValues: zip(oldIDs, oldElements))
        let newIDSet = Set(newIDs)
        for (id, newElement) in zip(newIDs, newElements) {
            let elementPath = path + "[id: \(id.base)]"
            if let oldElement = oldByID[id] {
                compare(oldElement, newElement, path: elementPath, label: label, redaction: redaction, presentation: presentation, into: &changes)
            } else {
                changes.append(
                    Change(
                        path: elementPath, old: nil, new: ValueRenderer.oneLine(newElement, labelled: label, redaction: redaction, presentation: presentation)))
            }
        }
        for (id, oldElement) in zip(oldIDs, oldElements) where !newIDSet.contains(id) {
            changes.append(
                Change(
                    path: path + "[id: \(id.base)]", old: ValueRenderer.oneLine(oldElement, labelled: label, redaction: redaction, presentation: presentation),
                    new: nil))
        }
    }
}

extension ValueRenderer {
    /// Renders a value found under `label`, hiding it when the label marks a secret.
    static func oneLine(_ value: Any, labelled label: String?, redaction: Redaction, presentation: Presentation = .swift, limit: Int = 2_000) -> String {
        var output = ""
        render(value, label: label, redaction: redaction, presentation: presentation, limit: limit, into: &output)
        guard output.utf8.count > limit else { return output }
        return String(output.prefix(limit)) + "…"
    }
}
