import AppEnvironment
import Foundation
import Models

extension LiveBackend {

    func profile(_ token: AccessToken) throws(AppError) -> User {
        try reading(token) { db, owner throws(AppError) in
            let users = try storage { () throws(DatabaseError) in
                try db.query("SELECT username, display_name, bio FROM accounts WHERE id = ?", [.text(owner.description)]) { row in
                    User(id: owner, username: Username(row.text(0)), displayName: row.text(1), bio: row.text(2))
                }
            }
            guard let user = users.first else { throw .notFound(.user, id: owner.description) }
            return user
        }
    }

    func posts(_ token: AccessToken) throws(AppError) -> [Post] {
        try reading(token) { db, owner throws(AppError) in
            try storage { () throws(DatabaseError) in
                try db.query(
                    "SELECT id, text, created_at FROM posts WHERE author_id = ? ORDER BY sequence DESC",
                    [.text(owner.description)]
                ) { row throws(DatabaseError) in
                    Post(
                        id: try Self.id(row, 0, "posts.id"), authorID: owner, text: row.text(1),
                        createdAt: Date(timeIntervalSinceReferenceDate: row.double(2)))
                }
            }
        }
    }

    func addPost(_ token: AccessToken, text: String) throws(AppError) -> Post {
        if let problem = Post.problem(with: text) { throw .invalidInput(reason: problem) }
        let id = Post.ID(uuid())
        let createdAt = now()
        return try writing(token) { db, owner throws(AppError) in
            try storage { () throws(DatabaseError) in
                try db.execute(
                    """
                    INSERT INTO posts (id, author_id, text, created_at, sequence)
                    VALUES (?, ?, ?, ?, (SELECT coalesce(max(sequence), 0) + 1 FROM posts WHERE author_id = ?))
                    """,
                    [
                        .text(id.description), .text(owner.description), .text(text),
                        .real(createdAt.timeIntervalSinceReferenceDate), .text(owner.description),
                    ])
            }
            return Post(id: id, authorID: owner, text: text, createdAt: createdAt)
        }
    }
}
