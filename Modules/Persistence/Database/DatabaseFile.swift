import Foundation
import StateStore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// What is checked and made on a database's path before SQLite opens it.
enum DatabaseFile {
    /// Held while a file is created and while SQLite opens one, so that no connection of this
    /// process opens a file between its creation and the closing of the descriptor that made it.
    private static let openingLock = Locked(())

    /// `open`'s result once `path` is checked (and for writing created owner-only if missing):
    /// refused untouched when it or its side files are not regular files, or not safely ours.
    static func opening<T>(_ path: String, forWriting: Bool, _ open: () throws(DatabaseError) -> T) throws(DatabaseError) -> T {
        let operation = forWriting ? "open \(path)" : "open \(path) for reading"
        return try openingLock.withLock { (_: inout Void) throws(DatabaseError) -> T in
            if try check(path, following: true, forWriting: forWriting, operation: operation) == nil {
                guard forWriting else { throw DatabaseError(.cannotOpen, operation: operation, message: "there is no such file") }
                try create(path, operation: operation)
            } else if forWriting, access(path, W_OK) != 0 {
                // SQLite would open it read-only, and every write would fail later, one by one.
                let reason = errno
                throw DatabaseError(
                    .readOnly, operation: operation, message: "the file cannot be written (\(String(cString: strerror(reason))))")
            }
            for side in [path + "-wal", path + "-shm"] {
                // SQLite opens these by name: a link planted there would send its writes elsewhere.
                _ = try check(side, following: false, forWriting: forWriting, operation: operation)
            }
            return try open()
        }
    }

    /// Takes group and other permissions off the database and its side files once it is known to be
    /// ours: SQLite gives new side files the database's mode.
    static func narrowToOwner(_ path: String) {
        for file in [path, path + "-wal", path + "-shm"] {
            var status = stat()
            guard lstat(file, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_mode & 0o077 != 0 else { continue }
            _ = chmod(file, status.st_mode & 0o700)
        }
    }

    /// The file's status, `nil` when there is none; throws when it may not be used.
    private static func check(_ file: String, following: Bool, forWriting: Bool, operation: String) throws(DatabaseError) -> stat? {
        var status = stat()
        guard (following ? stat(file, &status) : lstat(file, &status)) == 0 else {
            let reason = errno
            if reason == ENOENT { return nil }
            throw DatabaseError(.cannotOpen, operation: operation, message: "\(file): \(String(cString: strerror(reason)))")
        }
        let kind = status.st_mode & S_IFMT
        guard kind == S_IFREG else {
            throw DatabaseError(
                .cannotOpen, operation: operation,
                message: "\(file) is \(describe(kind)), not a regular file, and was left untouched")
        }
        guard forWriting else { return status }
        guard status.st_uid == geteuid() else {
            throw DatabaseError(
                .cannotOpen, operation: operation,
                message: "\(file) belongs to another user (uid \(status.st_uid)), and was left untouched; choose a file of your own")
        }
        guard status.st_mode & 0o022 == 0 else {
            throw DatabaseError(
                .cannotOpen, operation: operation,
                message:
                    "\(file) can be written by other users (mode \(String(status.st_mode & 0o777, radix: 8))), and was left untouched; make it owner-only (chmod 600) or choose another path"
            )
        }
        return status
    }

    /// Creates `path`, empty and owner-only, unless another process just did.
    private static func create(_ path: String, operation: String) throws(DatabaseError) {
        // Exclusive creation: a descriptor of a file this process just made, which no connection
        // of it can have open (``opening`` is held).
        let descriptor = openFile(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if descriptor >= 0 {
            _ = close(descriptor)
            return
        }
        let reason = errno
        if reason == EEXIST { return }
        let explanation = String(cString: strerror(reason))
        if reason == EACCES || reason == EROFS || reason == EPERM {
            throw DatabaseError(.readOnly, operation: operation, message: "the file cannot be created (\(explanation))")
        }
        throw DatabaseError(.cannotOpen, operation: operation, message: explanation)
    }

    private static func describe(_ kind: mode_t) -> String {
        switch kind {
        case S_IFDIR: "a directory"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFIFO: "a named pipe"
        case S_IFSOCK: "a socket"
        case S_IFLNK: "a symbolic link"
        default: "not a regular file"
        }
    }
}

private func openFile(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
    open(path, flags, mode)
}
