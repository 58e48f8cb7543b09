import Foundation
import Models
import Reducers
import StateStore

/// An action on one line in the line language's own words, for `history`.
struct HistoryLine {
    let noteIDs: NoteIDs

    static let textLimit = 40

    func render(_ action: AppFeature.Action) -> String {
        // The feature, then its action: `notes.inserted …`.
        guard let (feature, payload) = Self.enumCase(action), let payload else { return Self.plain(action) }
        guard let (name, arguments) = Self.enumCase(payload) else { return feature + " " + words(payload).joined(separator: " ") }
        return ([feature + "." + name] + (arguments.map(words) ?? [])).joined(separator: " ")
    }

    private func words(_ value: Any) -> [String] {
        switch value {
        case let text as String: return [Self.quoted(text)]
        case let date as Date: return [date.formatted(.iso8601)]
        case let id as Note.ID: return noteIDs.shortIDs(of: [id])
        case let note as Note: return noteIDs.shortIDs(of: [note.id]) + [Self.quoted(note.text)]
        case let item as Notes.Item: return words(item.note)
        case let results as Notes.SearchResults: return words(results.ids)
        case let page as NotePage: return ["(\(page.notes.count) of \(page.total))"]
        case let position as NotesPosition: return ["after"] + noteIDs.shortIDs(of: [position.id])
        case let username as Username: return [username.rawValue]
        case let credentials as Credentials: return [credentials.username.rawValue, "<redacted>"]
        case let user as User: return [user.username.rawValue]
        case let session as AuthSession: return [session.user.username.rawValue]
        case let error as AppError: return [Self.quoted(error.message)]
        case is Secret: return ["<redacted>"]
        case is Done: return ["done"]
        case let number as any Numeric: return ["\(number)"]
        case let flag as Bool: return [String(flag)]
        default: break
        }
        let mirror = Mirror(reflecting: value)
        switch mirror.displayStyle {
        case .enum:
            guard let (name, payload) = Self.enumCase(value) else { return [Self.plain(value)] }
            return [name] + (payload.map(words) ?? [])
        case .optional:
            return mirror.children.first.map { words($0.value) } ?? ["nil"]
        case .tuple:
            // A labelled argument left out (`basedOn: nil`) is not shown.
            return mirror.children.filter { !Self.isOmitted($0) }.flatMap { words($0.value) }
        case .collection, .set, .dictionary:
            return ["(\(mirror.children.count) item\(mirror.children.count == 1 ? "" : "s"))"]
        default:
            return [ValueRenderer.oneLine(value, limit: 60)]
        }
    }

    private static func isOmitted(_ child: Mirror.Child) -> Bool {
        guard let label = child.label, !label.hasPrefix(".") else { return false }
        let mirror = Mirror(reflecting: child.value)
        return mirror.displayStyle == .optional && mirror.children.isEmpty
    }

    private static func enumCase(_ value: Any) -> (name: String, payload: Any?)? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .enum else { return nil }
        guard let child = mirror.children.first, let label = child.label else {
            // A case without a payload has no child; its description is its name.
            return (String(describing: value), nil)
        }
        return (label, child.value)
    }

    private static func quoted(_ text: String) -> String {
        let flat = ConsoleScreens.oneLine(text)
        let cut = flat.count > textLimit ? String(flat.prefix(textLimit - 1)) + "…" : flat
        return ValueRenderer.oneLine(cut)
    }

    private static func plain(_ value: Any) -> String {
        ConsoleSession.plain(ValueRenderer.oneLine(value))
    }
}
