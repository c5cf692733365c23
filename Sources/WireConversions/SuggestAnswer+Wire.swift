import Index
import Wire

// A Suggest answer's response bytes, written inside the read transaction that found it: the hits
// from the memory map (``StoredHits``), the small sections through their messages. One encoder
// serves the node's answers and the benchmarks that measure them, so what is measured is what is
// sent.

extension SuggestAnswer {
    /// The presented `SuggestResponse` in protobuf, up to its per-call fields (session, revision,
    /// shard status: the message's last fields, which a server appends per call).
    public func protobufOpening() throws -> [UInt8] {
        try ResponseProto.suggest(entries: StoredHits(hits: hits), rest: presentedRest)
    }

    /// The presented `SuggestResponse` as JSON, up to its per-call members (see
    /// ``ResponseJSON/suggestClosing(_:session:revision:shards:)``).
    public func jsonOpening() throws -> [UInt8] {
        try ResponseJSON.suggestOpening(entries: StoredHits(hits: hits), rest: presentedRest)
    }

    /// This shard's `ShardSuggestResponse` (a cluster's part), read from `generation`: complete,
    /// it has no per-call fields.
    public func shardPart(generation: Int) throws -> [UInt8] {
        let rest = Typeahead_V1_ShardSuggestResponse(SuggestResponse(categories: categories, completions: completions,
                                                                     categoriesTruncated: categoriesTruncated),
                                                     generation: UInt64(generation))
        return try ResponseProto.shardSuggest(entries: StoredHits(hits: hits), ranks: hits.map { Typeahead_V1_RankKey($0.rank) },
                                              rest: rest)
    }

    private var presentedRest: Typeahead_V1_SuggestResponse {
        Typeahead_V1_SuggestResponse(SuggestResponse(categories: categories, completions: completions))
    }
}
