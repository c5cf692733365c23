/// The protobuf encoding of the client-facing responses with their hits taken from
/// ``EntryHitFields``: how a node writes hits it reads from its memory map straight into the
/// response bytes, with no message values in between.
///
/// The bytes equal what the generated `encode(to:)` writes for a message with the same fields (the
/// WireTests check it for random messages): field order, implicit-presence defaults and the map's
/// key order are the same. Unknown fields are not carried (a hit read from the index has none).
public enum ResponseProto {
    /// The encoded Suggest response: entries from `entries`, every other field from `rest`
    /// (whose own entries must be empty).
    public static func suggest<Hits: EntryHitList>(entries: Hits, rest: Typeahead_V1_SuggestResponse) throws(Hits.Hit.Failure) -> [UInt8] {
        precondition(rest.entries.isEmpty, "the entries come from `entries`")
        return try encode(entries, then: rest)
    }

    /// A presented Suggest response up to its per-call fields (session, revision, shards: its
    /// last fields, which a server appends per call): entries, categories and completions, in
    /// field order, the completions' texts lent by `completions`.
    public static func suggestOpening<Hits: EntryHitList, Completions: CompletionTextList>(
        entries: Hits, categories: [Typeahead_V1_CategorySuggestion], completions: Completions
    ) throws(Hits.Hit.Failure) -> [UInt8] where Completions.Failure == Never {
        var writer = ProtoWriter(reservingCapacity: 128 + 256 * entries.count)
        for index in 0..<entries.count { try writeEntry(try entries.hit(at: index), field: 1, to: &writer) }
        for category in categories { writer.writeMessage(2, category) }
        for index in 0..<completions.count {
            completions.withText(at: index) { head, tail in
                // QueryCompletion: text (1), skipped when empty.
                writer.writeKey(3, .lengthDelimited)
                let length = head.count + tail.count
                guard length > 0 else { return writer.writeVarint(0) }
                writer.writeVarint(UInt64(ProtoWriter.varintSize(UInt64(length)) + length + 1))
                writer.writeKey(1, .lengthDelimited)
                writer.writeVarint(UInt64(length))
                writer.writeRaw(head)
                writer.writeRaw(tail)
            }
        }
        return writer.bytes
    }

    /// The encoded Search response: hits from `hits`, every other field from `rest`.
    public static func search<Hits: EntryHitList>(hits: Hits, rest: Typeahead_V1_SearchResponse) throws(Hits.Hit.Failure) -> [UInt8] {
        precondition(rest.hits.isEmpty, "the hits come from `hits`")
        return try encode(hits, then: rest)
    }

    /// The encoded `ShardSuggestResponse`: entries from `entries` with their rank keys `ranks`
    /// (one each, in order), every other field from `rest` (whose own entries must be empty).
    public static func shardSuggest<Hits: EntryHitList>(entries: Hits, ranks: [Typeahead_V1_RankKey],
                                                        rest: Typeahead_V1_ShardSuggestResponse) throws(Hits.Hit.Failure) -> [UInt8] {
        precondition(rest.entries.isEmpty && ranks.count == entries.count, "one rank key per entry, the entries from `entries`")
        var writer = ProtoWriter(reservingCapacity: 128 + 320 * entries.count)
        for index in 0..<entries.count {
            let hit = try entries.hit(at: index)
            // RankedEntry: the hit (1), its rank key (2).
            try writer.writeNested(1) { entry throws(Hits.Hit.Failure) in
                try writeEntry(hit, field: 1, to: &entry)
                entry.writeMessage(2, ranks[index])
            }
        }
        rest.encode(to: &writer)
        return writer.bytes
    }

    /// Both responses keep their hits in field 1: written first, the rest's encoding follows in
    /// field order.
    private static func encode<Hits: EntryHitList>(_ hits: Hits, then rest: some ProtoMessage) throws(Hits.Hit.Failure) -> [UInt8] {
        var writer = ProtoWriter(reservingCapacity: 128 + 256 * hits.count)
        for index in 0..<hits.count { try writeEntry(try hits.hit(at: index), field: 1, to: &writer) }
        rest.encode(to: &writer)
        return writer.bytes
    }

    /// One `EntryHit` as message field `field`, in `typeahead.v1.EntryHit`'s field numbers.
    public static func writeEntry<Hit: EntryHitFields>(_ hit: Hit, field: Int, to writer: inout ProtoWriter) throws(Hit.Failure) {
        try writer.writeNested(field) { writer throws(Hit.Failure) in
            if try !hit.withEncodedFields({ writer.writeRaw($0) }) { try writeFields(hit, to: &writer) }
            try hit.withCompletion { writeString(6, $0, to: &writer) }
            try hit.forEachHighlight { start, end in
                writer.writeNested(7) { highlight in
                    highlight.write(ProtoUInt32.self, 1, start)
                    highlight.write(ProtoUInt32.self, 2, end)
                }
            }
        }
    }

    /// A hit's fields 1–5 (id, title, categories, weight, attributes), one by one.
    private static func writeFields<Hit: EntryHitFields>(_ hit: Hit, to writer: inout ProtoWriter) throws(Hit.Failure) {
            try hit.withID { writeString(1, $0, to: &writer) }
            try hit.withTitle { writeString(2, $0, to: &writer) }
            try hit.forEachCategory { category in
                writer.writeKey(3, .lengthDelimited)
                writer.writeLengthDelimited(category)
            }
            if hit.weight != 0 {
                writer.writeKey(4, .varint)
                writer.writeVarint(hit.weight)
            }
            try hit.forEachAttribute { key, value in
                writer.writeNested(5) { entry in
                    entry.writeKey(1, .lengthDelimited)
                    entry.writeLengthDelimited(key)
                    entry.writeKey(2, .lengthDelimited)
                    entry.writeLengthDelimited(value)
                }
            }
    }

    /// A `typeahead.v1.RankKey` as message field `number`, from its fields (the strings as UTF-8
    /// bytes): what the generated encoder writes for the same values.
    public static func writeRankKey(_ number: Int, typos: Int, field: Int, exact: Bool, startsWith: Bool, weight: UInt64,
                                    sortTitle: UnsafeRawBufferPointer, id: UnsafeRawBufferPointer, to writer: inout ProtoWriter) {
        writer.writeNested(number) { key in
            key.write(ProtoUInt32.self, 1, UInt32(clamping: typos))
            key.write(ProtoUInt32.self, 2, UInt32(clamping: field))
            key.write(ProtoBool.self, 3, startsWith)
            key.write(ProtoUInt64.self, 4, weight)
            writeString(5, sortTitle, to: &key)
            writeString(6, id, to: &key)
            key.write(ProtoBool.self, 7, exact)
        }
    }

    /// A singular string field, skipped when empty (proto3 implicit presence).
    public static func writeString(_ number: Int, _ text: UnsafeRawBufferPointer, to writer: inout ProtoWriter) {
        guard !text.isEmpty else { return }
        writer.writeKey(number, .lengthDelimited)
        writer.writeLengthDelimited(text)
    }
}
