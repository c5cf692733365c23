internal import CSystem
import Foundation

/// How a long-running server process uses glibc's allocator: fixed thresholds, and freed memory
/// handed back to the kernel now and then. Called by `typeahead node` and `typeahead coordinator`
/// at start; libraries and tests leave the allocator alone.
///
/// Why: glibc keeps freed memory in its arenas for reuse. Its thresholds rise with the largest
/// block freed, so after one index build or merge (hundreds of megabytes of arrays) every arena
/// keeps up to 64 MiB of free top and serves blocks of up to 32 MiB from the heap, where they
/// fragment it. `scripts/soak.sh` saw nodes' resident memory grow ~20% over 30 minutes of
/// writes and merges while the heap in use stayed flat (33 MiB); jemalloc would decay such pages
/// on its own, glibc needs to be told.
public enum ServingAllocator {
    /// Blocks of at least this many bytes are mapped on their own, and unmapped when freed.
    public static let mmapThreshold = 1 << 20
    /// An arena returns its free top beyond this.
    public static let trimThreshold = 8 << 20
    /// How often ``startReleasing(every:)`` hands free pages back by default.
    public static let releaseInterval: Duration = .seconds(30)

    /// Fixes the thresholds, unless the operator tuned malloc through the environment
    /// (`GLIBC_TUNABLES`, `MALLOC_*`): theirs wins. Returns whether they were set.
    @discardableResult
    public static func configure(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        if environment.keys.contains(where: { $0.hasPrefix("MALLOC_") })
            || environment["GLIBC_TUNABLES"].map({ $0.contains("malloc") }) == true {
            return false
        }
        return csystem_tune_allocator(mmapThreshold, trimThreshold) == 0
    }

    /// Hands the arenas' free pages back to the kernel (`malloc_trim`), on a utility queue, every
    /// `interval`: what remains free between live blocks after caches turn over, which no
    /// threshold returns. Takes each arena's lock for the walk (milliseconds with hundreds of
    /// megabytes free), so not more often than this. The returned timer runs until cancelled.
    public static func startReleasing(every interval: Duration = releaseInterval) -> DispatchSourceTimer {
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global(qos: .utility))
        let nanoseconds = Int(interval.nanosecondsClamped)
        timer.schedule(deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds))
        timer.setEventHandler { _ = csystem_release_free_memory() }
        timer.resume()
        return timer
    }
}
