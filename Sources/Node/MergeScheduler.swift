import Dispatch
import Index
import Observability
import RPC
import Synchronization

/// Folds the shard's delta into its base in the background whenever the merge policy says so
/// (see `Shard.beginMerge()` for why and how), without holding up writes.
///
/// The three steps run where they must: the snapshot and the switch on the node's writer queue
/// (in order with every write, so each write is in the snapshot or in the merge's log), the
/// build on the low-priority ``BackgroundThread`` (seconds of CPU, at nice +10, while the writer
/// queue goes on taking writes). A reindex's build queues behind a merge's on that one thread,
/// and a shard that is uploading a reindex is not merged (the reindex replaces the base).
///
/// Thread ownership: ``considerMerge()`` runs on the writer queue; `inFlight` is an atomic so that
/// the build thread can clear it after a failure. At most one merge is under way.
final class MergeScheduler: Sendable {
    private let shard: Shard
    private let policy: MergePolicy
    private let writer: DispatchQueue
    private let logger: Logger
    private let inFlight = Atomic<Bool>(false)
    private let merges: Counter
    private let failures: Counter
    private let seconds: Histogram
    /// Log fields naming the collection, for a collection other than the default (whose lines
    /// stay as they were before collections).
    private let naming: [String: String]

    /// `collection`: nil for the node's default collection, whose delta is the unlabelled
    /// `typeahead_index_delta_documents`; another collection's is listed by the node per
    /// collection. The merge counters are the node's totals over its collections.
    init(shard: Shard, policy: MergePolicy, writer: DispatchQueue, telemetry: ServerTelemetry, collection: String? = nil) {
        self.shard = shard
        self.policy = policy
        self.writer = writer
        logger = telemetry.logger
        naming = collection.map { ["collection": $0] } ?? [:]
        let registry = telemetry.registry
        merges = registry.counter(name: "typeahead_merges_total", help: "Merges finished: the delta folded into a new base revision.")
        failures = registry.counter(name: "typeahead_merge_failures_total", help: "Merges that failed or were abandoned.")
        seconds = registry.histogram(name: "typeahead_merge_seconds", help: "Time from a merge's snapshot to its switch.",
                                     buckets: [0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300])
        guard collection == nil else { return }
        registry.gauge(name: "typeahead_index_delta_documents",
                       help: "Delta documents plus deleted base documents of the serving generation: what the next merge folds in.") {
            Double((try? shard.deltaSize().total) ?? 0)
        }
    }

    /// Whether a merge is under way (begun, not yet switched or failed).
    var isMerging: Bool { inFlight.load(ordering: .relaxed) }

    /// After a write, on the writer queue: starts a merge if one is due.
    func considerMerge() {
        guard !inFlight.load(ordering: .relaxed) else { return }
        let pending: PendingMerge
        do {
            guard try shard.mergeDue(policy), let begun = try shard.beginMerge() else { return }
            pending = begun
        } catch {
            failures.increment()
            logger.error("merge not started", naming.merging(["error": "\(error)"]) { $1 })
            return
        }
        inFlight.store(true, ordering: .relaxed)
        let started = ContinuousClock.now
        logger.info("merge started", naming.merging(["generation": "\(pending.generation)", "revision": "\(pending.revision)",
                                                     "delta_documents": "\(pending.delta.documents)",
                                                     "deleted_base": "\(pending.delta.deletedBase)", "base": "\(pending.delta.base)"]) { $1 })
        BackgroundThread.shared.start { [self] in
            do {
                let build = try shard.buildMerge(pending)
                // Straight onto the writer queue, past its bound: the switch is the node's own work
                // and must not be refused by a burst of client writes.
                writer.async { [self] in
                    finish(pending, build: build, started: started)
                }
            } catch {
                failures.increment()
                logger.error("merge build failed; the serving revision is unchanged",
                             naming.merging(["generation": "\(pending.generation)", "error": "\(error)"]) { $1 })
                inFlight.store(false, ordering: .relaxed)
            }
        }
    }

    private func finish(_ pending: PendingMerge, build: BuildStatistics, started: ContinuousClock.Instant) {
        defer {
            inFlight.store(false, ordering: .relaxed)
            considerMerge()   // writes during a long build may have filled the delta again
        }
        do {
            guard let info = try shard.finishMerge(pending, build: build) else {
                failures.increment()
                logger.info("merge abandoned: its generation no longer serves", naming.merging(["generation": "\(pending.generation)"]) { $1 })
                return
            }
            let elapsed = ContinuousClock.now - started
            merges.increment()
            seconds.observe(elapsed)
            logger.info("merge finished", naming.merging(["generation": "\(info.generation)", "revision": "\(info.revision)",
                                                          "entries": "\(info.entries)", "replayed_batches": "\(info.replayed)",
                                                          "seconds": "\(elapsed.secondsValue)"]) { $1 })
        } catch {
            failures.increment()
            logger.error("merge switch failed; the serving revision is unchanged",
                         naming.merging(["generation": "\(pending.generation)", "error": "\(error)"]) { $1 })
        }
    }
}

private extension Duration {
    var secondsValue: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
