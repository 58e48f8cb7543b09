import Dispatch
import StateStore

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The signals that ask a program to end, caught so that a front end ends the way quitting does.
public enum TerminationSignals {
    /// SIGTERM, SIGINT and SIGHUP.
    public static let standard: [Int32] = [SIGTERM, SIGINT, SIGHUP]

    /// The sources kept alive for the life of the process.
    private static let sources = Locked<[any DispatchSourceSignal]>([])

    /// From now on `signals` no longer end the process at once.
    public static func catching(_ signals: [Int32] = standard, handler: @escaping @Sendable (Int32) -> Void) {
        signal(SIGPIPE, SIG_IGN)
        let received = Locked(false)
        let queue = DispatchQueue(label: "appcore.termination-signals")
        let listening = DispatchGroup()
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                let isFirst = received.withLock { received in
                    defer { received = true }
                    return !received
                }
                if isFirst { handler(number) } else { _exit(128 + number) }
            }
            listening.enter()
            source.setRegistrationHandler { listening.leave() }
            source.resume()
            sources.withLock { $0.append(source) }
        }
        // Until its source is registered (on libdispatch's own thread, later), a signal is
        // ignored and lost: on a loaded machine a SIGTERM sent right after a shell's first answer
        // was, one time in four. Waits for the registrations, which take microseconds.
        _ = listening.wait(timeout: .now() + .seconds(5))
    }
}
