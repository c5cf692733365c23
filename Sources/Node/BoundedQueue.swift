import Dispatch
import Synchronization

/// A dispatch queue that holds at most `limit` jobs (queued or running): beyond it a job is
/// refused at once instead of waiting without bound, so a node under load answers
/// RESOURCE_EXHAUSTED rather than piling up work. The count is a relaxed atomic: admission is
/// advisory, and nothing else is published with it.
final class BoundedQueue: Sendable {
    let queue: DispatchQueue
    let limit: Int
    /// The RESOURCE_EXHAUSTED message of a refused job.
    let refusal: String
    private let admitted = Atomic<Int>(0)

    init(_ queue: DispatchQueue, limit: Int, refusal: String) {
        self.queue = queue
        self.limit = limit
        self.refusal = refusal
    }

    /// Queues `job`, or returns false when the queue is full (nothing queued).
    func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        guard admitted.add(1, ordering: .relaxed).newValue <= limit else {
            admitted.subtract(1, ordering: .relaxed)
            return false
        }
        queue.async { [self] in
            job()
            admitted.subtract(1, ordering: .relaxed)
        }
        return true
    }
}
