import Index
import Wire

// A Suggest answer's response bytes, written inside the read transaction that found it: hits and
// completions from the memory map (``StoredHits``, ``StoredCompletionTexts``), the chips through
// their messages. One encoder serves the node's answers and the benchmarks that measure them, so
// what is measured is what is sent.

extension SuggestAnswer {
    /// The presented `SuggestResponse` in protobuf, up to its per-call fields (session, revision,
    /// shard status: the message's last fields, which a server appends per call).
    public func protobufOpening() throws -> [UInt8] {
        try ResponseProto.suggestOpening(entries: StoredHits(hits: hits), categories: categories.map(Typeahead_V1_CategorySuggestion.init),
                                         completions: completionTexts)
    }

    /// The presented `SuggestResponse` as JSON, up to its per-call members (see
    /// ``ResponseJSON/suggestClosing(_:session:revision:shards:)``).
    public func jsonOpening() throws -> [UInt8] {
        try ResponseJSON.suggestOpening(entries: StoredHits(hits: hits), categories: categories.map(Typeahead_V1_CategorySuggestion.init),
                                        completions: completionTexts)
    }

    private var completionTexts: StoredCompletionTexts {
        StoredCompletionTexts(head: textBeforePartial ?? "", completions: completions)
    }

    /// This shard's `ShardSuggestResponse` (a cluster's part), read from `generation`: complete,
    /// it has no per-call fields. Written field by field from the views, in the generated
    /// encoder's order (the NodeTests compare the two).
    public func shardPart(generation: Int) throws -> [UInt8] {
        var writer = ProtoWriter(reservingCapacity: 128 + 320 * hits.count + 96 * completions.count)
        for view in hits {
            // RankedEntry: the hit (1), its rank key (2).
            try writer.writeNested(1) { entry throws in
                try ResponseProto.writeEntry(StoredHit(view: view), field: 1, to: &entry)
                view.withRank { typos, field, exact, startsWith, weight, sortTitle, id in
                    ResponseProto.writeRankKey(2, typos: typos, field: field, exact: exact, startsWith: startsWith, weight: weight,
                                               sortTitle: sortTitle, id: id, to: &entry)
                }
            }
        }
        for category in categories { writer.writeMessage(2, Typeahead_V1_RankedCategory(category)) }
        for completion in completions {
            // RankedCompletion: text (1, empty in a shard's part), term (2), typos (3), best (4), spelling (5).
            writer.writeNested(3) { ranked in
                completion.withTerm { ResponseProto.writeString(2, $0, to: &ranked) }
                ranked.write(ProtoUInt32.self, 3, UInt32(clamping: completion.typos))
                completion.withBest { typos, field, exact, startsWith, weight, sortTitle, id in
                    ResponseProto.writeRankKey(4, typos: typos, field: field, exact: exact, startsWith: startsWith, weight: weight,
                                               sortTitle: sortTitle, id: id, to: &ranked)
                }
                completion.withSpelling { ResponseProto.writeString(5, $0, to: &ranked) }
            }
        }
        writer.write(ProtoUInt64.self, 4, UInt64(generation))
        writer.write(ProtoBool.self, 5, categoriesTruncated)
        writer.write(ProtoBool.self, 6, true)  // hits_highlighted: the hits above carry them
        return writer.bytes
    }
}
