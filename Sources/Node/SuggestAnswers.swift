import Caching
import Index
import Observability
import RPC
import Wire
import WireConversions

/// The node's presented Suggest answers, encoded in the call's format straight from the memory
/// map, and kept in a bounded cache of encoded answers.
///
/// Why a cache: every keystroke of every person is a request, and people type the same prefixes
/// ("p", "py", "pyt" …); a kept answer costs a hash and a copy instead of a query.
///
/// Exact: an answer is kept under the ``ReadVersion`` it was computed at (the generation and its
/// last committed transaction, which every write of any process changes), the format, and the
/// request without its session and revision. So a kept answer is only ever served for the same
/// request reading the same data, and a write or an activation makes every older entry
/// unreachable, and the cache drops it (its epoch is the read version, see ``StripedCache``).
/// What is kept is the answer up to its per-call fields; the session, revision and shard status
/// are appended per call (they are the last fields of the message, and the JSON object's last
/// members), so callers of different sessions share entries.
///
/// Bounded by bytes (``NodeConfiguration/answerCacheBytes``; 0 turns it off), striped, FIFO (see
/// ``StripedCache``). Counted in `typeahead_answer_cache_*` metrics.
final class SuggestAnswers: Sendable {
    struct Key: Hashable, Sendable {
        init(version: ReadVersion, form: Form, request: Typeahead_V1_SuggestRequest) {
            self.version = version
            self.form = form
            self.request = request.serializedBytes()
        }

        var version: ReadVersion
        var form: Form
        /// The request's protobuf encoding with `session` and `revision` cleared.
        var request: [UInt8]
    }

    /// Which answer is kept: a client's (`Typeahead/Suggest`) in a format, or a shard's part of a
    /// cluster's (`Shard/ShardSuggest`, protobuf only).
    enum Form: Hashable, Sendable {
        case presented(WireFormat)
        case shardPart
    }

    /// An entry's cost beyond the answer's and the request's bytes: two array headers and their
    /// allocations' rounding, the dictionary slot (at its load factor), the FIFO slot. Measured,
    /// not guessed: with 160 here, `scripts/soak.sh` saw a node's anonymous memory grow about 1.55
    /// bytes per byte this cache counted (64 MiB counted, ~100 MiB resident) on the sample
    /// catalog's short answers, where this overhead dominates.
    static let entryOverhead = 320
    private let cache: StripedCache<Key, [UInt8]>?
    /// The node's count of the plans behind computed answers.
    private let plans: SuggestPlanCounters?

    /// `registry`: where the cache's `typeahead_answer_cache_*` series go (the default
    /// collection's); nil for another collection's cache, which the node lists by collection
    /// instead (see ``statistics``).
    init(cacheBytes: Int, registry: MetricsRegistry?, plans: SuggestPlanCounters? = nil) {
        self.plans = plans
        let stripes = 16
        guard cacheBytes >= stripes * 4096 else {
            cache = nil
            return
        }
        let cache = StripedCache<Key, [UInt8]>(stripes: stripes, entriesPerStripe: max(64, cacheBytes / stripes / 512),
                                               costPerStripe: cacheBytes / stripes, maximumCost: 256 << 10,
                                               epoch: { $0.version.cacheEpoch })
        self.cache = cache
        guard let registry else { return }
        registry.counter(name: "typeahead_answer_cache_hits_total", help: "Suggest answers served from the answer cache.") {
            Double(cache.statistics().hits)
        }
        registry.counter(name: "typeahead_answer_cache_misses_total", help: "Suggest answers computed (not in the answer cache).") {
            Double(cache.statistics().misses)
        }
        registry.gauge(name: "typeahead_answer_cache_entries", help: "Suggest answers kept in the answer cache.") {
            Double(cache.statistics().entries)
        }
        registry.gauge(name: "typeahead_answer_cache_bytes", help: "Bytes the answer cache holds, overhead included.") {
            Double(cache.statistics().cost)
        }
        registry.counter(name: "typeahead_answer_cache_retired_total",
                         help: "Kept answers dropped because a write or a switch made them unreachable.") {
            Double(cache.statistics().retired)
        }
    }

    /// The cache's figures; nil when it is off.
    var statistics: StripedCacheStatistics? { cache?.statistics() }

    /// The encoded presented answer to `message` (already converted to `request`).
    ///
    /// `shouldStop` is evaluated only when the answer is computed: making the call's stop test is
    /// an allocation (a closure) that an answer from the cache does without.
    func answer(_ message: Typeahead_V1_SuggestRequest, _ request: SuggestRequest, format: WireFormat, shard: Shard,
                shouldStop: @autoclosure () -> @Sendable () -> Bool) throws -> [UInt8] {
        let version = try shard.readVersion()
        var keyed = message
        keyed.session = ""
        keyed.revision = 0
        let opening = try cached(Key(version: version, form: .presented(format), request: keyed)) {
            try Self.opening(request, format: format, shard: shard, generation: version.generation, plans: plans,
                             shouldStop: shouldStop())
        }
        return Self.closing(opening, format: format, session: message.session, revision: message.revision,
                            shards: .singleNode(generation: version.generation))
    }

    /// The encoded `ShardSuggestResponse` to `message` (`request`, read from the generation
    /// `pinned`, or the current one), written from the map like a client's answer, and cached
    /// alike (it has no per-call fields).
    func shardAnswer(_ message: Typeahead_V1_SuggestRequest, _ request: SuggestRequest, pinned: Int?, shard: Shard,
                     shouldStop: @autoclosure () -> @Sendable () -> Bool) throws -> [UInt8] {
        let version = try shard.readVersion(generation: pinned)
        return try cached(Key(version: version, form: .shardPart, request: message)) {
            try shard.suggest(request, form: .shardPart, generation: version.generation, shouldStop: shouldStop()) {
                plans?.count($0.plan)
                return try $0.shardPart(generation: version.generation)
            }
        }
    }

    /// The kept bytes for `key`, or `compute()`'s (then kept).
    private func cached(_ key: Key, _ compute: () throws -> [UInt8]) rethrows -> [UInt8] {
        guard let cache else { return try compute() }
        if let hit = cache.cached(key) { return hit }
        let answer = try compute()
        // Every entry goes in here, at a cost that counts the key's bytes too.
        cache.insert(answer, for: key, cost: answer.count + key.request.count + Self.entryOverhead)
        return answer
    }

    /// The answer's encoding up to its per-call fields, computed from the generation read.
    static func opening(_ request: SuggestRequest, format: WireFormat, shard: Shard, generation: Int,
                        plans: SuggestPlanCounters? = nil, shouldStop: (@Sendable () -> Bool)?) throws -> [UInt8] {
        try shard.suggest(request, generation: generation, shouldStop: shouldStop) { answer in
            plans?.count(answer.plan)
            switch format {
            case .protobuf: return try answer.protobufOpening()
            case .json: return try answer.jsonOpening()
            }
        }
    }

    /// `opening` with the per-call fields: in protobuf the message's last three fields, appended;
    /// in JSON the object's last members and its end.
    static func closing(_ opening: [UInt8], format: WireFormat, session: String, revision: UInt64,
                        shards: Typeahead_V1_ShardStatus) -> [UInt8] {
        switch format {
        case .protobuf:
            // One allocation: the opening, then the closing fields written behind it.
            var writer = ProtoWriter(reservingCapacity: opening.count + session.utf8.count + 48)
            opening.withUnsafeBytes { writer.writeRaw($0) }
            Typeahead_V1_SuggestResponse(session: session, revision: revision, shards: shards).encode(to: &writer)
            return writer.bytes
        case .json:
            return ResponseJSON.suggestClosing(opening, session: session, revision: revision, shards: shards)
        }
    }
}
