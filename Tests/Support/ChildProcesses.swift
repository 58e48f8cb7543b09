import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Child processes that inherit only their standard streams, however many tests start them at
/// once.
///
/// Foundation's `Process` on Linux closes the test process's other descriptors in the child by
/// a list it makes before spawning: a pipe another test makes meanwhile is inherited, and that
/// pipe's reader then sees its end only when the unrelated child exits (a shell waiting for the
/// end of its input waited for one of fifty writers). Here descriptors for children are made,
/// and children started, one at a time; each start first marks every descriptor close-on-exec.
public enum ChildProcesses {
    private static let starting = NSLock()

    /// A pipe for a child's standard stream.
    public static func pipe() -> Pipe {
        making { Pipe() }
    }

    /// The result of `make`, which opens descriptors (a pseudo-terminal) that no child started
    /// meanwhile may inherit.
    public static func making<Made>(_ make: () throws -> Made) rethrows -> Made {
        starting.lock()
        defer { starting.unlock() }
        return try make()
    }

    /// Starts `process` with only its standard streams (and no descriptor of the tests).
    public static func start(_ process: Process) throws {
        try making {
            markEveryDescriptorCloseOnExec()
            try process.run()
        }
    }

    /// A child's standard streams are copied onto 0, 1 and 2, which clears the mark on the copy.
    private static func markEveryDescriptorCloseOnExec() {
        #if os(Linux)
        guard let folder = opendir("/proc/self/fd") else { return }
        defer { closedir(folder) }
        let own = dirfd(folder)
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let descriptor = Int32(name), descriptor > 2, descriptor != own else { continue }
            let flags = fcntl(descriptor, F_GETFD)
            if flags >= 0 { _ = fcntl(descriptor, F_SETFD, flags | FD_CLOEXEC) }
        }
        #endif
    }
}
