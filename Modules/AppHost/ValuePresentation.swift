import Foundation
import Models
import StateStore

extension ValueRenderer.Presentation {
    /// The app's values in a user's words, for messages and inspection: ids as text, ISO 8601
    /// dates, enum cases without their type's name.
    public static let app = ValueRenderer.Presentation(namesCaseTypes: false) { value in
        switch value {
        case let date as Date: date.formatted(.iso8601)
        case let id as Note.ID: id.description
        case let id as User.ID: id.description
        case let id as Post.ID: id.description
        case let username as Username: "\"\(username.rawValue)\""
        case let cursor as NotesCursor: cursor.description
        default: nil
        }
    }
}
