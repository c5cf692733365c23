import Cluster
import Observability

/// The coordinator's own metrics, beside ``RPC/ServerTelemetry``'s per-method ones. Every series
/// is resolved once at start (per shard, per replica), so the request path only does atomic adds.
///
/// - `typeahead_coordinator_shard_requests_total{shard,outcome}`: shard calls by outcome — `ok`,
///   `error`, `deadline` (the shard missed the deadline), `cancelled`
/// - `typeahead_coordinator_shard_request_duration_seconds{shard}`: answered shard calls
/// - `typeahead_coordinator_shard_requests_cancelled_total{reason}`: shard calls the coordinator
///   reset (RST_STREAM) — `superseded` (a newer keystroke of the session), `client` (the caller
///   went away), `hedge` (another replica answered first), `deadline`
/// - `typeahead_coordinator_hedges_total{shard,result}`: hedged calls `sent` and `won`
/// - `typeahead_coordinator_failovers_total{shard}`: calls retried on another replica after an error
/// - `typeahead_coordinator_partial_answers_total{method}`: answers without some shard
/// - `typeahead_coordinator_superseded_calls_total`: client calls answered CANCELLED because a newer
///   keystroke of their session arrived
/// - `typeahead_coordinator_categories_truncated_total`: merged suggestions where a shard had more
///   matching categories than it could list
/// - `typeahead_coordinator_serving_generation` (the default collection's),
///   `typeahead_coordinator_collection_serving_generation{collection}` (every collection's),
///   `typeahead_coordinator_replica_up{shard,replica}`
/// - `typeahead_coordinator_sessions_in_flight`, `typeahead_coordinator_sessions_finished`: the
///   session table's keystrokes in flight and remembered finished revisions (registered by the
///   server, read from its collections' ``SessionTable``s)
///
/// Collections: each has its own telemetry over the one registry. Series by shard name the
/// default collection's shards as before (`shard="shard-0"`) and another collection's with its
/// name in front (`shard="departments/shard-0"`), so a cluster of one collection exposes exactly
/// what it did before collections and two collections' `shard-0`s never share a series. The
/// families without a shard label (cancellations by reason, partial answers, superseded calls,
/// truncated categories) are the coordinator's totals over its collections.
final class CoordinatorTelemetry: Sendable {
    /// One shard's series.
    struct ShardSeries: Sendable {
        let ok: Counter.Series
        let error: Counter.Series
        let deadline: Counter.Series
        let cancelled: Counter.Series
        let latency: Histogram.Series
        let hedgesSent: Counter.Series
        let hedgesWon: Counter.Series
        let failovers: Counter.Series
    }

    /// Why the coordinator reset a shard call.
    enum CancelReason: Sendable {
        case superseded, client, hedge, deadline
    }

    let logger: Logger
    let shards: [ShardSeries]
    let replicaUp: [Gauge.Series]
    /// The unlabelled gauge of the default collection; nil for another collection.
    let servingGeneration: Gauge?
    /// This collection's series of the gauge every collection has.
    let collectionServingGeneration: Gauge.Series
    let superseded: Counter.Series
    let categoriesTruncated: Counter.Series
    let partialSuggest: Counter.Series
    let partialSearch: Counter.Series
    private let cancelledSuperseded: Counter.Series
    private let cancelledClient: Counter.Series
    private let cancelledHedge: Counter.Series
    private let cancelledDeadline: Counter.Series

    /// The default collection's telemetry.
    convenience init(cluster: ClusterFile, registry: MetricsRegistry, logger: Logger) {
        self.init(collection: cluster.collections[cluster.defaultIndex], isDefault: true, registry: registry, logger: logger)
    }

    /// `collection`'s telemetry; `isDefault`: it is the cluster's default collection (its shard
    /// labels are the bare shard names).
    init(collection: ClusterFile.Collection, isDefault: Bool, registry: MetricsRegistry, logger: Logger) {
        self.logger = logger
        let label: (ClusterFile.Shard) -> String = { shard in isDefault ? shard.name : "\(collection.name)/\(shard.name)" }
        let requests = registry.counter(name: "typeahead_coordinator_shard_requests_total",
                                        help: "Shard calls by shard and outcome (ok, error, deadline, cancelled).",
                                        labelNames: ["shard", "outcome"])
        let latency = registry.histogram(name: "typeahead_coordinator_shard_request_duration_seconds",
                                         help: "Latency of answered shard calls, from send to answer.", labelNames: ["shard"])
        let hedges = registry.counter(name: "typeahead_coordinator_hedges_total",
                                      help: "Hedged shard calls sent, and those whose answer was used.", labelNames: ["shard", "result"])
        let failovers = registry.counter(name: "typeahead_coordinator_failovers_total",
                                         help: "Shard calls retried on another replica after an error.", labelNames: ["shard"])
        shards = collection.shards.map { shard in
            let name = label(shard)
            return ShardSeries(ok: requests.labels(["shard": name, "outcome": "ok"]),
                               error: requests.labels(["shard": name, "outcome": "error"]),
                               deadline: requests.labels(["shard": name, "outcome": "deadline"]),
                               cancelled: requests.labels(["shard": name, "outcome": "cancelled"]),
                               latency: latency.labels(["shard": name]),
                               hedgesSent: hedges.labels(["shard": name, "result": "sent"]),
                               hedgesWon: hedges.labels(["shard": name, "result": "won"]),
                               failovers: failovers.labels(["shard": name]))
        }
        let up = registry.gauge(name: "typeahead_coordinator_replica_up",
                                help: "1 while queries are sent to the replica (healthy and holding the serving generation).",
                                labelNames: ["shard", "replica"])
        replicaUp = collection.shards.flatMap { shard in shard.replicas.map { up.labels(["shard": label(shard), "replica": $0.description]) } }
        servingGeneration = isDefault ? registry.gauge(name: "typeahead_coordinator_serving_generation",
                                                       help: "The index generation every query reads (0: none; not ready).")
            : nil
        collectionServingGeneration = registry.gauge(name: "typeahead_coordinator_collection_serving_generation",
                                                     help: "The index generation every query of each collection reads (0: none).",
                                                     labelNames: ["collection"]).labels(["collection": collection.name])
        let cancelled = registry.counter(name: "typeahead_coordinator_shard_requests_cancelled_total",
                                         help: "Shard calls reset by the coordinator, by reason (superseded, client, hedge, deadline).",
                                         labelNames: ["reason"])
        cancelledSuperseded = cancelled.labels(["reason": "superseded"])
        cancelledClient = cancelled.labels(["reason": "client"])
        cancelledHedge = cancelled.labels(["reason": "hedge"])
        cancelledDeadline = cancelled.labels(["reason": "deadline"])
        superseded = registry.counter(name: "typeahead_coordinator_superseded_calls_total",
                                      help: "Client calls answered CANCELLED because a newer keystroke of their session arrived.").labels([:])
        categoriesTruncated = registry.counter(name: "typeahead_coordinator_categories_truncated_total",
                                               help: "Merged suggestions where a shard matched more categories than it lists.").labels([:])
        let partial = registry.counter(name: "typeahead_coordinator_partial_answers_total",
                                       help: "Answers given without some shard (it failed or missed the deadline).", labelNames: ["method"])
        partialSuggest = partial.labels(["method": "Suggest"])
        partialSearch = partial.labels(["method": "Search"])
    }

    func cancelled(_ reason: CancelReason, shard: Int) {
        shards[shard].cancelled.increment()
        switch reason {
        case .superseded: cancelledSuperseded.increment()
        case .client: cancelledClient.increment()
        case .hedge: cancelledHedge.increment()
        case .deadline: cancelledDeadline.increment()
        }
    }
}
