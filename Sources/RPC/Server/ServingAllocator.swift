internal import CSystem
import Foundation

/// How a long-running server process uses its allocator (jemalloc, linked through CSystem: see
/// `csystem.h`): freed pages returned to the kernel after a short decay time by a background
/// thread, and purged at once now and then. Called by `typeahead node` and `typeahead
/// coordinator` at start; libraries, tests and short-lived commands leave the allocator alone.
///
/// Why: a serving node's caches turn over all day (every write empties the version-keyed ones),
/// and merges and reindexes free hundreds of megabytes at once. With glibc's allocator that
/// memory stayed resident, scattered over its arenas: `scripts/soak.sh` saw nodes grow 13-32%
/// over 30 minutes while the heap in use stayed flat. jemalloc returns it by itself; the
/// settings here make that prompt and independent of an arena allocating again.
public enum ServingAllocator {
    /// How long freed (dirty) pages stay resident for reuse before they are returned.
    public static let dirtyDecay: Duration = .seconds(5)
    /// How often ``startReleasing(every:)`` purges every arena by default: a backstop behind the
    /// decay, for memory freed by a build in one burst.
    public static let releaseInterval: Duration = .seconds(30)

    /// Starts the background purging thread and sets the decay time, unless the operator tuned
    /// the allocator through the environment (`MALLOC_CONF`): theirs wins. Returns whether the
    /// settings were applied.
    @discardableResult
    public static func configure(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        if environment["MALLOC_CONF"] != nil { return false }
        return csystem_tune_allocator(Int(dirtyDecay.nanosecondsClamped / 1_000_000)) == 0
    }

    /// Purges every arena's dirty pages, on a utility queue, every `interval`. The returned timer
    /// runs until cancelled.
    public static func startReleasing(every interval: Duration = releaseInterval) -> DispatchSourceTimer {
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global(qos: .utility))
        let nanoseconds = Int(interval.nanosecondsClamped)
        timer.schedule(deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds))
        timer.setEventHandler { _ = csystem_release_free_memory() }
        timer.resume()
        return timer
    }

    /// Whether jemalloc serves this process (every program linked with CSystem, except the
    /// sanitizer builds of the fuzz targets).
    public static var isJemalloc: Bool { csystem_allocator_is_jemalloc() != 0 }

    /// The allocator's account: bytes in use, and bytes resident beyond them.
    public static func heapStatistics() -> (inUse: UInt64, free: UInt64) {
        var inUse: UInt64 = 0, free: UInt64 = 0
        csystem_heap_statistics(&inUse, &free)
        return (inUse, free)
    }
}
