import Dispatch
import Index
import Observability
import RPC
import Wire

/// One collection a node serves: its ``Shard`` (its own directory and LMDB environments), its
/// answer cache and its background merges. A node holds one per `--dir` / `--collection
/// NAME=DIR`; requests reach it by the collection they name (``CollectionRouter``).
///
/// Collections share the node's port, event loops, read pool and writer queue (one write at a
/// time per process, whatever the collection: writes are rare and short, and builds already run
/// one at a time on the background thread); everything keyed by data stays apart: the answer
/// caches (a cache's entries are retired by its own shard's data version), the merges, Stats.
///
/// ```swift
/// let products = NodeCollection(name: "products", shard: try Shard(directory: "/srv/products"), isDefault: false,
///                               answerCacheBytes: 32 << 20, mergePolicy: MergePolicy(), writer: writer, telemetry: telemetry)
/// ```
final class NodeCollection: Sendable {
    /// The collection's name (``CollectionName``): `default` for `--dir`.
    let name: String
    let shard: Shard
    /// Requests without a collection read this one.
    let isDefault: Bool
    /// Suggest answers, encoded from the map and cached.
    let answers: SuggestAnswers
    /// Folds the delta into the base once it grows (after writes, on the writer queue).
    let merges: MergeScheduler

    /// The default collection's cache and merges report in the unlabelled series they always
    /// had; the others' are listed per collection by the node (`typeahead_collection_*`).
    init(name: String, shard: Shard, isDefault: Bool, answerCacheBytes: Int, mergePolicy: MergePolicy, writer: DispatchQueue,
         telemetry: ServerTelemetry, plans: SuggestPlanCounters? = nil) {
        self.name = name
        self.shard = shard
        self.isDefault = isDefault
        answers = SuggestAnswers(cacheBytes: answerCacheBytes, registry: isDefault ? telemetry.registry : nil, plans: plans)
        merges = MergeScheduler(shard: shard, policy: mergePolicy, writer: writer, telemetry: telemetry, collection: isDefault ? nil : name)
    }

    /// Log fields that name the collection, empty for the default one (its lines read as before).
    var logFields: [String: String] { isDefault ? [:] : ["collection": name] }
}
