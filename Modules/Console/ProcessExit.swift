import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Ends the process once, however many tasks ask at the same moment (input ending as a signal
/// arrives): the C library's `exit` must not run on two threads at once.
public enum ProcessExit {
    private static let exiting = Locked(false)

    /// Flushes the C streams and exits with `status`, or waits while another caller does.
    public static func exit(_ status: Int32) -> Never {
        let first = exiting.withLock { exiting in
            defer { exiting = true }
            return !exiting
        }
        if first {
            fflush(nil)
            Foundation.exit(status)
        }
        while true { pause() }
    }
}
