import Catalog
import Dispatch
import Synchronization

/// The serial half of a build's first pass, on a thread of its own: each analysed batch's words
/// interned (``BuildVocabulary``) and its entries added to the rank-ordered sort
/// (``RankedRecord``), while the building thread reads and analyses the next batch.
///
/// Why: reading and analysing run on every core, interning and sorting on one; done in turn, one
/// core idled through the serial part (a third of the pass for the synthetic 1M catalog).
///
/// Backpressure: at most ``inFlight`` batches wait or run here; ``submit(_:_:)`` blocks the building
/// thread beyond that, so memory holds that many batches at most.
///
/// Thread ownership: `vocabulary`, `ranked` and `failure` belong to `queue` from ``init`` until
/// ``finish()`` has drained it; after that, to the caller of ``finish()`` alone. `failed` is read
/// by the building thread to stop early.
final class RankedIntake: @unchecked Sendable {
    static let inFlight = 2

    private(set) var vocabulary = BuildVocabulary()
    private let ranked: ExternalSorter
    private var failure: (any Error)?
    private let failed = Atomic<Bool>(false)
    private let queue = DispatchQueue(label: "typeahead.build.intake")
    private let room = DispatchSemaphore(value: RankedIntake.inFlight)
    private let threaded: Bool
    private var key: [UInt8] = []
    private var value = ByteWriter(capacity: 4096)

    /// With `threaded` false, ``submit(_:_:)`` does the work on the calling thread.
    init(ranked: ExternalSorter, threaded: Bool) {
        self.ranked = ranked
        self.threaded = threaded
    }

    /// Whether an earlier batch failed (``finish()`` throws why).
    var hasFailed: Bool { failed.load(ordering: .relaxed) }

    /// Interns and sorts `analysed`, the analyses of `batch`'s entries, in order.
    func submit(_ analysed: [BuildDocument], _ batch: ArraySlice<CatalogEntry>) {
        guard threaded else { return consume(analysed, batch) }
        room.wait()
        queue.async { [self] in
            consume(analysed, batch)
            room.signal()
        }
    }

    /// Waits for every batch submitted (so that none still writes when a failed build removes its
    /// files).
    func drain() {
        if threaded { queue.sync {} }
    }

    /// Waits for every batch; returns the sort of all, or throws the first failure. Once.
    func finish() throws -> ExternalSorter {
        drain()
        if let failure { throw failure }
        return ranked
    }

    private func consume(_ analysed: [BuildDocument], _ batch: ArraySlice<CatalogEntry>) {
        guard failure == nil else { return }
        do {
            // By index: iterating `zip(analysed, batch)` copied each entry and document out of
            // its array (a dozen retains and releases each, 4% of a synthetic 1M build).
            for index in analysed.indices {
                key.removeAll(keepingCapacity: true)
                let entry = batch.startIndex + index
                RankedRecord.key(weight: batch[entry].weight, sortTitle: analysed[index].sortTitle, id: batch[entry].id, into: &key)
                value.removeAll()
                RankedRecord.encode(analysed[index], vocabulary: &vocabulary, into: &value)
                try key.withUnsafeBytes { k in try value.bytes.withUnsafeBytes { v in try ranked.add(key: k, value: v) } }
            }
            guard ranked.count < Int(UInt32.max / 2) else {
                throw IndexError.invalidArgument("a shard holds at most \(UInt32.max / 2) entries")
            }
        } catch {
            failure = error
            failed.store(true, ordering: .relaxed)
        }
    }
}
