import Dispatch

/// The `ids` and `titles` sorts finished on a thread of their own while the building thread
/// writes the terms: ``ExternalSorter/sorted()`` sorts a sort's last part in memory (a million
/// keys for the synthetic 1M catalog, two of them), which kept the other core idle in a write
/// phase that is otherwise one thread's.
///
/// Thread ownership: the sorters belong to the sorting thread from ``init`` until ``wait()``
/// returns; after that the sorted records (or the error) belong to the caller of ``wait()`` alone.
/// Every path out of the build calls ``wait()`` (a failed build removes the spill files the sorts
/// read and write).
final class BackgroundSorts: @unchecked Sendable {
    private let done = DispatchGroup()
    private var result: Result<(ids: SortedRecords, titles: SortedRecords), any Error>?

    /// Starts sorting `ids` and `titles`; neither may be used by the caller any more.
    init(ids: ExternalSorter, titles: ExternalSorter) {
        nonisolated(unsafe) let ids = ids, titles = titles
        DispatchQueue.global(qos: .userInitiated).async(group: done) { [self] in
            result = Result { (try ids.sorted(), try titles.sorted()) }
        }
    }

    /// Waits for both sorts; returns them, or throws why one failed. Once.
    func wait() throws -> (ids: SortedRecords, titles: SortedRecords) {
        done.wait()
        guard let result else { throw IndexError(.internal, "the ids and titles sorts were taken already") }
        self.result = nil
        return try result.get()
    }

    /// Waits for both sorts to end, keeping nothing: a failed build's way out. Any number of times.
    func drain() {
        done.wait()
    }
}
