import Dispatch
import Synchronization

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Where a store's effects run: on the thread that starts them for as long as they do not wait
/// for another thread; woken by another thread, on an idle ``HandOffLane`` (else the global pool).
@usableFromInline
final class EffectExecutor: TaskExecutor, @unchecked Sendable {
    /// The runner whose effects these are, for `Task.cancel(id:)`.
    nonisolated(unsafe) unowned(unsafe) var owner: (any EffectCancelling)?

    /// The executors alive, to find the one an effect's task prefers (for `Task.cancel(id:)`).
    private static let live = Locked<[(executor: UnownedTaskExecutor, object: Unmanaged<EffectExecutor>)]>([])

    @usableFromInline
    init() {
        let unowned = asUnownedTaskExecutor()
        // Sound: the entry leaves `live` in `deinit`, before the object goes, and `current`
        // turns it back into a reference only for a task that prefers this executor, and so holds it.
        let object = Unmanaged.passUnretained(self)
        Self.live.withLock { $0.append((unowned, object)) }
    }

    deinit {
        let object = Unmanaged.passUnretained(self).toOpaque()
        Self.live.withLock { $0.removeAll { $0.object.toOpaque() == object } }
    }

    /// The executor the current task prefers, if it is an effect's.
    static var current: EffectExecutor? {
        guard let preferred = withUnsafeCurrentTask(body: { $0?.unownedTaskExecutor }) else { return nil }
        return live.withLock { live in live.first { $0.executor == preferred }?.object.takeUnretainedValue() }
    }

    /// The thread draining this executor, or 0.
    private let drainer = Atomic<UInt>(0)
    @exclusivity(unchecked) private var pending = RingBuffer<UnownedJob>()
    private static let jobsPerDrain = 1_024

    @usableFromInline
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        if drainer.load(ordering: .acquiring) == ThreadIdentity.current.raw {
            pending.append(job)
        } else if let lent = LentThread.current {
            lent.woken.append((self, job))
        } else {
            handOff(job)
        }
    }

    /// Runs `start`, which starts tasks preferring this executor, with this thread as the
    /// drainer when nobody else is; then runs what they enqueued here until nothing is left.
    @usableFromInline
    func drain(after start: () -> Task<Void, Never>?) -> Task<Void, Never>? {
        guard claim() else {
            // Drained up the stack already: that drain runs the new jobs, in order.
            if drainer.load(ordering: .acquiring) == ThreadIdentity.current.raw { return start() }
            // Drained by another thread: the new effects start here before `send` returns, as
            // with nobody draining, rather than later on a thread of their own.
            var started: Task<Void, Never>?
            runningWokenEffectsHere { started = start() }
            return started
        }
        let started = start()
        runQueued()
        release()
        return started
    }

    /// Makes this thread the drainer when nobody is (`true`); it then runs the queued jobs
    /// (``runQueued()``) and lets go (``release()``).
    @usableFromInline
    func claim() -> Bool {
        drainer.load(ordering: .acquiring) == 0
            && drainer.compareExchange(expected: 0, desired: ThreadIdentity.current.raw, ordering: .acquiringAndReleasing).exchanged
    }

    /// Stops draining, after ``claim()``.
    @usableFromInline
    func release() { drainer.store(0, ordering: .releasing) }

    /// Runs the jobs queued so far, and those they queue; by the drainer only.
    @usableFromInline
    func runQueued() {
        var ran = 0
        while let job = pending.popFirst() {
            guard ran < Self.jobsPerDrain else {
                handOff(job)
                while let rest = pending.popFirst() { handOff(rest) }
                return
            }
            job.runSynchronously(on: asUnownedTaskExecutor())
            ran += 1
        }
    }

    /// Runs `job` on another thread, which drains what the job enqueues: an idle lane's, else one
    /// of the global concurrent executor's.
    private func handOff(_ job: UnownedJob) {
        if HandOffLane.runOnIdleLane(job, on: self) { return }
        Task.detached(executorPreference: globalConcurrentExecutor) { [self] in runHere(job) }
    }

    /// Runs `job` on this thread, which drains what the job enqueues.
    func runHere(_ job: UnownedJob) {
        _ = drain {
            job.runSynchronously(on: asUnownedTaskExecutor())
            return nil
        }
    }
}

/// A serial Dispatch queue that runs one woken effect job at a time. A job woken by a block on
/// another serial queue (a client's) is handed to a lane rather than to the concurrency pool: both
/// are served by Dispatch's pool for serial queues, so the thread whose block woke the job, once
/// that block returns, usually runs it, where the pool would wake a thread of its own.
enum HandOffLane {
    private final class Lane: Sendable {
        let queue = DispatchQueue(label: "appcore.effects.hand-off")
        let isBusy = Atomic(false)

        init() {
            queue.setSpecific(key: HandOffLane.marker, value: true)
        }
    }

    private static let marker = DispatchSpecificKey<Bool>()

    /// As many lanes as the pool has threads: effects woken together still run side by side.
    private static let lanes: [Lane] = (0..<max(2, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))).map { _ in Lane() }

    static var count: Int { lanes.count }

    /// Whether this code runs on a lane.
    static var isCurrent: Bool { DispatchQueue.getSpecific(key: marker) == true }

    /// Runs `job` on `executor` on a lane that runs nothing else now (`true`), or nowhere when
    /// none is idle.
    static func runOnIdleLane(_ job: UnownedJob, on executor: EffectExecutor) -> Bool {
        for lane in lanes where lane.isBusy.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged {
            lane.queue.async {
                executor.runHere(job)
                lane.isBusy.store(false, ordering: .releasing)
            }
            return true
        }
        return false
    }
}

/// Runs `body`, lending this thread to the store effects it wakes: their jobs run here once `body`
/// returns, instead of each waking a thread of the concurrency pool.
func runningWokenEffectsHere(_ body: () -> Void) {
    let lent = LentThread()
    let previous = pthread_getspecific(LentThread.key)
    // Sound: `lent` lives until this function returns, and the key is reset before then.
    pthread_setspecific(LentThread.key, Unmanaged.passUnretained(lent).toOpaque())
    defer { pthread_setspecific(LentThread.key, previous) }
    body()
    // What the woken jobs wake in turn, on other effect executors, runs here too.
    while !lent.woken.isEmpty {
        let woken = lent.woken
        lent.woken.removeAll()
        for (executor, job) in woken { executor.runHere(job) }
    }
}

/// A thread lent to the effects it wakes, for the length of ``runningWokenEffectsHere(_:)``.
private final class LentThread {
    /// Jobs enqueued from this thread on effect executors it does not drain.
    var woken: [(EffectExecutor, UnownedJob)] = []

    static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    static var current: LentThread? {
        // Sound: the key holds a record only while `runningWokenEffectsHere` keeps it alive.
        pthread_getspecific(key).map { Unmanaged<LentThread>.fromOpaque($0).takeUnretainedValue() }
    }
}
