import Caching
import Index
import Observability

/// The node's metrics that read its shards at scrape time (nothing on the request path).
///
/// The default collection keeps the unlabelled series it always had (`typeahead_index_*`,
/// `typeahead_lmdb_*`, `typeahead_answer_cache_*`, `typeahead_index_delta_documents`), so a
/// dashboard of a one-collection node reads as before. Every collection, the default included, is
/// also listed in `typeahead_collection_*{collection}` families:
///
/// - `typeahead_collection_generation`, `typeahead_collection_entries`: the serving generation
///   and its live entries
/// - `typeahead_collection_used_bytes`, `typeahead_collection_map_bytes`: its LMDB file
/// - `typeahead_collection_delta_documents`: what the next merge folds in
/// - `typeahead_collection_answer_cache_bytes`, `…_answer_cache_hits_total`,
///   `…_answer_cache_misses_total`: its share of the answer cache
extension NodeServer {
    /// The default collection's shard's series, unlabelled as before collections: read from the
    /// shard at scrape time.
    static func registerGauges(of shard: Shard, in registry: MetricsRegistry) {
        registry.gauge(name: "typeahead_index_generation", help: "The generation serving queries.") {
            Double(shard.currentGeneration ?? 0)
        }
        registry.gauge(name: "typeahead_index_entries", help: "Live entries in the serving generation.") {
            Double((try? shard.entryCount()) ?? 0)
        }
        registry.gauge(name: "typeahead_lmdb_map_bytes", help: "LMDB map size of the serving generation.") {
            Double((try? shard.storageStatistics().mapSize) ?? 0)
        }
        registry.gauge(name: "typeahead_lmdb_used_bytes", help: "Bytes of the LMDB map in use by the serving generation.") {
            Double((try? shard.storageStatistics().usedBytes) ?? 0)
        }
        // The serving generation's query caches (see `Generation`), one series per cache.
        func caches(_ value: @escaping @Sendable ((name: String, statistics: StripedCacheStatistics, countsBytes: Bool)) -> Double?)
            -> @Sendable () -> [CallbackSample] {
            { shard.cacheStatistics().compactMap { cache in value(cache).map { CallbackSample(labelValues: [cache.name], value: $0) } } }
        }
        registry.gauge(name: "typeahead_index_cache_entries", help: "Entries each query cache of the serving generation keeps.",
                       labelNames: ["cache"], series: caches { Double($0.statistics.entries) })
        registry.gauge(name: "typeahead_index_cache_bytes", help: "Bytes each query cache of the serving generation holds (caches counted in bytes).",
                       labelNames: ["cache"], series: caches { $0.countsBytes ? Double($0.statistics.cost) : nil })
        registry.counter(name: "typeahead_index_cache_hits_total", help: "Look-ups each query cache of the serving generation answered.",
                         labelNames: ["cache"], series: caches { Double($0.statistics.hits) })
        registry.counter(name: "typeahead_index_cache_misses_total", help: "Look-ups each query cache of the serving generation missed.",
                         labelNames: ["cache"], series: caches { Double($0.statistics.misses) })
        registry.counter(name: "typeahead_index_cache_retired_total",
                         help: "Entries each query cache of the serving generation dropped because a write made them unreachable.",
                         labelNames: ["cache"], series: caches { Double($0.statistics.retired) })
        // The trie of the delta's words (typo'd keystrokes over live updates), rebuilt after writes.
        registerSnapshotCache(name: "typeahead_index_delta_trie", value: "trie of the delta's words", values: "Tries of the delta's words",
                              without: "Typo'd keystrokes that walked the delta's terms", count: "walks",
                              statistics: shard.deltaTrieStatistics, in: registry)
        // The deleted base documents as a bitmap (every query over live updates), rebuilt after writes.
        registerSnapshotCache(name: "typeahead_index_deleted_bitmap", value: "bitmap of deleted documents",
                              values: "Bitmaps of the deleted documents", without: "Queries that looked deleted documents up one by one",
                              count: "lookups", statistics: shard.deletedBitmapStatistics, in: registry)
        // The chips' words in memory (typo'd words matched against categories), rebuilt after writes.
        registerSnapshotCache(name: "typeahead_index_chip_words", value: "chip words", values: "In-memory lists of the chips' words",
                              without: "Typo'd words that walked the chips' words", count: "walks",
                              statistics: shard.chipWordsStatistics, in: registry)
    }

    /// The series of one ``SnapshotCacheStatistics``: `NAME_builds_total{by}`, `NAME_COUNT_total`
    /// (queries that did without the value), `NAME_build_seconds`, `NAME_bytes`.
    private static func registerSnapshotCache(name: String, value: String, values: String, without: String, count: String,
                                              statistics: @escaping @Sendable () -> SnapshotCacheStatistics?,
                                              in registry: MetricsRegistry) {
        registry.counter(name: "\(name)_builds_total",
                         help: "\(values) built for the serving generation, by the query that needed one (small inputs) or in the background.",
                         labelNames: ["by"], series: {
            guard let built = statistics() else { return [] }
            return [CallbackSample(labelValues: ["query"], value: Double(built.queryBuilds)),
                    CallbackSample(labelValues: ["background"], value: Double(built.backgroundBuilds))]
        })
        registry.counter(name: "\(name)_\(count)_total",
                         help: "\(without) because the \(value) of their snapshot was still being built.") {
            Double(statistics()?.doneWithout ?? 0)
        }
        registry.gauge(name: "\(name)_build_seconds", help: "How long the last \(value) took to build.") {
            statistics()?.lastBuildSeconds ?? 0
        }
        registry.gauge(name: "\(name)_bytes", help: "Bytes of the \(value) kept.") {
            Double(statistics()?.bytes ?? 0)
        }
    }


    /// The searches admitted, by state: how close the node is to refusing them.
    static func registerSearchQueueGauge(_ reads: BoundedQueue, in registry: MetricsRegistry) {
        registry.gauge(name: "typeahead_search_queue_jobs",
                       help: "Searches admitted, running or waiting (first in first out); more than the queue's limit are refused.",
                       labelNames: ["state"], series: {
            let load = reads.load
            return [CallbackSample(labelValues: ["running"], value: Double(load.running)),
                    CallbackSample(labelValues: ["waiting"], value: Double(load.waiting))]
        })
    }

    /// Every collection's series, labelled `collection`.
    static func registerCollectionGauges(_ collections: [NodeCollection], in registry: MetricsRegistry) {
        func each(_ value: @escaping @Sendable (NodeCollection) -> Double?) -> @Sendable () -> [CallbackSample] {
            { collections.compactMap { collection in value(collection).map { CallbackSample(labelValues: [collection.name], value: $0) } } }
        }
        registry.gauge(name: "typeahead_collection_generation", help: "The generation serving each collection's queries.",
                       labelNames: ["collection"], series: each { Double($0.shard.currentGeneration ?? 0) })
        registry.gauge(name: "typeahead_collection_entries", help: "Live entries in each collection's serving generation.",
                       labelNames: ["collection"], series: each { (try? $0.shard.entryCount()).map(Double.init) })
        registry.gauge(name: "typeahead_collection_used_bytes", help: "Bytes of each collection's serving LMDB map in use.",
                       labelNames: ["collection"], series: each { (try? $0.shard.storageStatistics().usedBytes).map(Double.init) })
        registry.gauge(name: "typeahead_collection_map_bytes", help: "LMDB map size of each collection's serving generation.",
                       labelNames: ["collection"], series: each { (try? $0.shard.storageStatistics().mapSize).map(Double.init) })
        registry.gauge(name: "typeahead_collection_delta_documents",
                       help: "Delta documents plus deleted base documents of each collection's serving generation.",
                       labelNames: ["collection"], series: each { (try? $0.shard.deltaSize().total).map(Double.init) })
        registry.gauge(name: "typeahead_collection_answer_cache_bytes", help: "Bytes each collection's answer cache holds.",
                       labelNames: ["collection"], series: each { $0.answers.statistics.map { Double($0.cost) } })
        registry.counter(name: "typeahead_collection_answer_cache_hits_total", help: "Suggest answers of each collection served from its cache.",
                         labelNames: ["collection"], series: each { $0.answers.statistics.map { Double($0.hits) } })
        registry.counter(name: "typeahead_collection_answer_cache_misses_total", help: "Suggest answers of each collection computed.",
                         labelNames: ["collection"], series: each { $0.answers.statistics.map { Double($0.misses) } })
    }
}
