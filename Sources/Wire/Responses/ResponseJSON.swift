/// The proto3 JSON mapping (lowerCamelCase field names) of the client-facing responses, i.e. of
/// `typeahead.v1.SuggestResponse` and `typeahead.v1.SearchResponse` in `proto/typeahead/v1/
/// typeahead.proto`, written with ``JSONWriter`` straight from the fields. Hits come through
/// ``EntryHitFields`` (a decoded message, or a node's hits read from its memory map); the rest of a
/// response from its wire message. The WireTests parse this output with the reference protobuf
/// library's JSON parser and compare it with the binary encoding, so the two forms cannot drift.
///
/// Every field is written, defaults included, so that clients never have to know proto3's
/// "absent means default" rule — except the coordinator's fields `session`, `revision`,
/// `shards` and `sections`, written only when set (a node answering directly has none, and only
/// a scoped answer has sections; its top level then has no `shards`). Weights and counts are
/// JSON numbers (the index keeps them below 2^53; proto3 JSON parsers accept numbers for 64-bit
/// fields); `revision`, an arbitrary client counter, is a string, as proto3 JSON writes uint64. An
/// absent sub-message (a chip's `token`, never absent in what the index returns) is `null`.
public enum ResponseJSON {
    /// The JSON text of `response`, ending in a line feed.
    public static func suggest(_ response: Typeahead_V1_SuggestResponse) -> [UInt8] {
        suggest(entries: response.entries, rest: response)
    }

    /// The JSON text of `response`, ending in a line feed.
    public static func search(_ response: Typeahead_V1_SearchResponse) -> [UInt8] {
        search(hits: response.hits, rest: response)
    }

    /// A Suggest response whose entries come from `entries` and every other field from `rest`
    /// (whose own `entries` are ignored).
    public static func suggest<Hits: EntryHitList>(entries: Hits, rest response: Typeahead_V1_SuggestResponse) throws(Hits.Hit.Failure) -> [UInt8] {
        suggestClosing(try suggestOpening(entries: entries, rest: response), session: response.session, revision: response.revision,
                       shards: response.shards, sections: response.sections)
    }

    /// A Suggest response's JSON up to its per-call members: the object opened, `entries`,
    /// `categories` and `completions` written, not closed. (What a node keeps in its answer cache:
    /// the same for every caller asking the same, whatever their session.)
    public static func suggestOpening<Hits: EntryHitList>(entries: Hits, rest response: Typeahead_V1_SuggestResponse) throws(Hits.Hit.Failure) -> [UInt8] {
        try suggestOpening(entries: entries, categories: response.categories, completions: response.completions)
    }

    /// As ``suggestOpening(entries:rest:)``, with the completions' texts lent by `completions`.
    public static func suggestOpening<Hits: EntryHitList, Completions: CompletionTextList>(
        entries: Hits, categories: [Typeahead_V1_CategorySuggestion], completions: Completions
    ) throws(Hits.Hit.Failure) -> [UInt8] where Completions.Failure == Never {
        var json = JSONWriter(reservingCapacity: 320 + 320 * entries.count)
        json.beginObject()
        json.key("entries")
        try write(entries, to: &json)
        json.key("categories")
        write(categories, to: &json)
        json.key("completions")
        json.beginArray()
        for index in 0..<completions.count {
            json.object { json in
                json.key("text")
                completions.withText(at: index) { head, tail in json.string(utf8: head, tail) }
            }
        }
        json.endArray()
        return json.bytes
    }

    /// `opening` (from ``suggestOpening(entries:rest:)``) completed with the per-call members and
    /// closed, ending in a line feed.
    public static func suggestClosing(_ opening: [UInt8], session: String, revision: UInt64, shards: Typeahead_V1_ShardStatus?,
                                      sections: [Typeahead_V1_SuggestSection] = []) -> [UInt8] {
        var json = JSONWriter(continuingObject: opening)
        if !session.isEmpty { json.key("session"); json.string(session) }
        if revision != 0 { json.key("revision"); json.string(String(revision)) }
        if let shards { json.key("shards"); write(shards, to: &json) }
        if !sections.isEmpty { json.key("sections"); write(sections, to: &json) }
        json.endObject()
        json.newline()
        return json.bytes
    }

    /// A Search response whose hits come from `hits` and every other field from `rest`.
    public static func search<Hits: EntryHitList>(hits: Hits, rest response: Typeahead_V1_SearchResponse) throws(Hits.Hit.Failure) -> [UInt8] {
        var json = JSONWriter(reservingCapacity: 256 + 320 * hits.count)
        json.beginObject()
        json.key("hits")
        try write(hits, to: &json)
        json.key("totalHits"); json.unsigned(UInt64(response.totalHits))
        json.key("facets")
        write(response.facets, to: &json)
        json.key("nextPageToken"); json.string(response.nextPageToken)
        if let shards = response.shards { json.key("shards"); write(shards, to: &json) }
        if !response.sections.isEmpty { json.key("sections"); write(response.sections, to: &json) }
        json.endObject()
        json.newline()
        return json.bytes
    }

    static func write<Hits: EntryHitList>(_ hits: Hits, to json: inout JSONWriter) throws(Hits.Hit.Failure) {
        json.beginArray()
        for index in 0..<hits.count { try writeEntry(try hits.hit(at: index), to: &json) }
        json.endArray()
    }

    /// One `EntryHit` object.
    public static func writeEntry<Hit: EntryHitFields>(_ hit: Hit, to json: inout JSONWriter) throws(Hit.Failure) {
        json.beginObject()
        json.key("id"); try hit.withID { json.string(utf8: $0) }
        json.key("title"); try hit.withTitle { json.string(utf8: $0) }
        json.key("categories")
        json.beginArray()
        try hit.forEachCategory { json.string(utf8: $0) }
        json.endArray()
        json.key("weight"); json.unsigned(hit.weight)
        json.key("attributes")
        json.beginObject()
        try hit.forEachAttribute { key, value in
            json.key(utf8: key)
            json.string(utf8: value)
        }
        json.endObject()
        json.key("completion"); try hit.withCompletion { json.string(utf8: $0) }
        json.key("highlights")
        json.beginArray()
        try hit.forEachHighlight { start, end in
            json.beginObject()
            json.key("start"); json.unsigned(UInt64(start))
            json.key("end"); json.unsigned(UInt64(end))
            json.endObject()
        }
        json.endArray()
        json.endObject()
    }

    static func write(_ categories: [Typeahead_V1_CategorySuggestion], to json: inout JSONWriter) {
        json.array(categories) { json, category in
            json.object { json in
                json.key("name"); json.string(category.name)
                json.key("count"); json.unsigned(UInt64(category.count))
                json.key("token")
                if let token = category.token { write(token, to: &json) } else { json.null() }
                json.key("replacementText"); json.string(category.replacementText)
            }
        }
    }

    static func write(_ facets: [Typeahead_V1_Facet], to json: inout JSONWriter) {
        json.array(facets) { json, facet in
            json.object { json in
                json.key("name"); json.string(facet.name)
                json.key("count"); json.unsigned(UInt64(facet.count))
            }
        }
    }

    static func write(_ token: Typeahead_V1_SearchToken, to json: inout JSONWriter) {
        json.beginObject()
        json.key("kind"); json.string(token.kind)
        json.key("value"); json.string(token.value)
        json.endObject()
    }

    static func write(_ shards: Typeahead_V1_ShardStatus, to json: inout JSONWriter) {
        json.beginObject()
        json.key("total"); json.unsigned(UInt64(shards.total))
        json.key("succeeded"); json.unsigned(UInt64(shards.succeeded))
        json.key("failed"); json.unsigned(UInt64(shards.failed))
        json.key("failedShards")
        json.array(shards.failedShards) { json, name in json.string(name) }
        json.key("generation"); json.unsigned(shards.generation)
        json.endObject()
    }
}
