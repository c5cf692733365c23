import Dispatch
import Synchronization

/// A dispatch queue with admission control: at most `concurrency` jobs run at once, at most
/// `limit` are admitted (running or waiting, first in first out), and beyond that a job is
/// refused at once instead of waiting without bound, so a node under load answers
/// RESOURCE_EXHAUSTED rather than piling up work.
///
/// Why a wait at all: a search refused because four were running sent the coordinator to the
/// other replica, and when both replicas were busy at the same moment (every replica of a shard
/// takes the same write batch, so they begin merges together) the search came back partial. A
/// short FIFO absorbs such a moment within the call's deadline; the caller's deadline, polled by
/// the job itself, still bounds how long an admitted job's work can take.
///
/// Why not let the dispatch queue do the waiting: a concurrent `DispatchQueue` runs whatever it
/// is given on as many threads as it sees fit, so a cap on running jobs needs its own count, and
/// blocking workers on a semaphore would park threads instead of jobs.
///
/// Thread ownership: ``submit(_:)`` may be called from any thread; the state is under one mutex
/// held for a few instructions (no job runs under it), and jobs run on `queue`.
///
/// ```swift
/// let reads = BoundedQueue(DispatchQueue(label: "reads", attributes: .concurrent), concurrency: 4, limit: 64,
///                          refusal: "too many searches in flight; retry shortly")
/// if !reads.submit({ search() }) { reply(.resourceExhausted) }
/// ```
final class BoundedQueue: Sendable {
    let queue: DispatchQueue
    /// Jobs admitted at most (running or waiting).
    let limit: Int
    /// Jobs running at most; the rest of the admitted wait.
    let concurrency: Int
    /// The RESOURCE_EXHAUSTED message of a refused job.
    let refusal: String
    private let state = Mutex(State())

    private struct State {
        var running = 0
        /// Waiting jobs from `head` on (a queue in an array: the front is dropped in batches).
        var waiting: [@Sendable () -> Void] = []
        var head = 0
        var waitingCount: Int { waiting.count - head }
    }

    /// - Parameters:
    ///   - concurrency: jobs run at once; nil: as many as admitted (a serial `queue` runs one
    ///     at a time anyway).
    ///   - limit: jobs admitted, at least `concurrency`.
    init(_ queue: DispatchQueue, concurrency: Int? = nil, limit: Int, refusal: String) {
        precondition(limit >= 1 && (concurrency ?? limit) >= 1, "a queue needs room")
        self.queue = queue
        self.limit = limit
        self.concurrency = min(concurrency ?? limit, limit)
        self.refusal = refusal
    }

    /// Runs or queues `job`, or returns false when `limit` jobs are admitted already (nothing
    /// queued).
    func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        enum Decision { case run, wait, refuse }
        let decision: Decision = state.withLock { state in
            if state.running < concurrency {
                state.running += 1
                return .run
            }
            guard state.running + state.waitingCount < limit else { return .refuse }
            state.waiting.append(job)
            return .wait
        }
        switch decision {
        case .run: dispatch(job)
        case .wait: break
        case .refuse: return false
        }
        return true
    }

    /// Jobs running and waiting now (for metrics and tests; a moment's view).
    var load: (running: Int, waiting: Int) {
        state.withLock { ($0.running, $0.waitingCount) }
    }

    private func dispatch(_ job: @escaping @Sendable () -> Void) {
        queue.async { [self] in
            job()
            // The slot passes to the oldest waiting job, if any, else it is freed.
            let next: (@Sendable () -> Void)? = state.withLock { state in
                guard state.waitingCount > 0 else {
                    state.running -= 1
                    return nil
                }
                let job = state.waiting[state.head]
                state.waiting[state.head] = {}   // the slot no longer holds what the job captured
                state.head += 1
                if state.head >= 64 && state.head * 2 >= state.waiting.count {
                    state.waiting.removeFirst(state.head)
                    state.head = 0
                } else if state.head == state.waiting.count {
                    state.waiting.removeAll(keepingCapacity: true)
                    state.head = 0
                }
                return job
            }
            if let next { dispatch(next) }
        }
    }
}
