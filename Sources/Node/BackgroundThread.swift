internal import CSystem
import Foundation
import Synchronization

/// One thread of its own at a lower CPU priority (nice +10), for the work that may take a node
/// seconds of CPU while it serves: building a generation (a reindex's finish, a full build,
/// compaction).
///
/// Why: a reindex builds on every replica at once, on machines that are serving. At the same
/// priority a build takes its share of the cores from the event loops, answers slow down for as
/// long as it runs, and a coordinator's health checks time out and take replicas out of routing
/// (seen in `scripts/soak.sh`: a reindex under 70% load failed requests). Under Linux's fair
/// scheduler a nice-10 thread gets about a tenth of a contended core against a nice-0 one, so
/// serving keeps its pace and the build uses what serving leaves.
///
/// Why a thread of its own rather than a dispatch queue: Linux keeps a nice value per thread,
/// and an unprivileged thread cannot lower it again, so a pool thread once lowered would carry
/// the low priority into unrelated work. This thread is lowered once and keeps it for the life
/// of the process. The builds it runs do their work on it (sequentially; see
/// ``Shard/buildThreads``).
///
/// Thread-safety: jobs are handed over under a mutex; ``run(_:)`` blocks its caller (the node's
/// serial writer queue, which keeps every change in order) until the job is done.
final class BackgroundThread: Sendable {
    /// One per process: builds are serialised by the shard's build lock anyway.
    static let shared = BackgroundThread(name: "typeahead.build", nice: 10)

    private let jobs = Mutex<[@Sendable () -> Void]>([])
    private let available = DispatchSemaphore(value: 0)

    private init(name: String, nice: Int32) {
        // The thread holds the (process-long) instance for its life.
        let thread = Thread { [self] in
            _ = csystem_set_thread_nice(nice)   // at worst it keeps the default priority
            while true {
                available.wait()
                let job = jobs.withLock { $0.removeFirst() }
                job()
            }
        }
        thread.name = name
        thread.start()
    }

    /// Runs `job` on the background thread and returns once it finished.
    func run(_ job: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        start {
            job()
            done.signal()
        }
        done.wait()
    }

    /// Queues `job` for the background thread and returns at once (jobs run in order, one at a
    /// time). Then the build's freed memory is purged at once (``csystem_release_free_memory``)
    /// rather than after the allocator's decay time: a build frees hundreds of megabytes at once.
    func start(_ job: @escaping @Sendable () -> Void) {
        jobs.withLock {
            $0.append {
                job()
                _ = csystem_release_free_memory()
            }
        }
        available.signal()
    }
}
