import Index

/// The proto3 JSON mapping (lowerCamelCase field names) of the client-facing responses, i.e. of
/// `typeahead.v1.SuggestResponse` and `typeahead.v1.SearchResponse` in `proto/typeahead/v1/
/// typeahead.proto`. One writer, from the wire messages; the Index-typed entry points convert first,
/// so the JSON and the binary form cannot drift apart (the WireTests parse this output with the
/// reference protobuf library's JSON parser and compare it with the binary encoding).
///
/// Every field is written, defaults included, so that clients never have to know proto3's
/// "absent means default" rule — except the coordinator's fields `session`, `revision` and
/// `shards`, written only when set (a node answering directly has none). Weights and counts are
/// JSON numbers (the index keeps them below 2^53; proto3 JSON parsers accept numbers for 64-bit
/// fields); `revision`, an arbitrary client counter, is a string, as proto3 JSON writes uint64. An
/// absent sub-message (a chip's `token`, never absent in what the index returns) is `null`.
public enum ResponseJSON {
    public static func suggest(_ response: SuggestResponse) -> JSONValue {
        suggest(Typeahead_V1_SuggestResponse(response))
    }

    public static func search(_ response: SearchResponse) -> JSONValue {
        search(Typeahead_V1_SearchResponse(response))
    }

    public static func entry(_ hit: EntryHit) -> JSONValue {
        entry(Typeahead_V1_EntryHit(hit))
    }

    public static func token(_ token: SearchToken) -> JSONValue {
        self.token(Typeahead_V1_SearchToken(token))
    }

    public static func suggest(_ response: Typeahead_V1_SuggestResponse) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("entries", .array(response.entries.map(entry))),
            ("categories", .array(response.categories.map { category in
                .object([
                    ("name", .string(category.name)),
                    ("count", .integer(Int64(category.count))),
                    ("token", category.token.map(token) ?? .null),
                    ("replacementText", .string(category.replacementText)),
                ])
            })),
            ("completions", .array(response.completions.map { completion in
                .object([("text", .string(completion.text))])
            })),
        ]
        if !response.session.isEmpty { members.append(("session", .string(response.session))) }
        if response.revision != 0 { members.append(("revision", .string(String(response.revision)))) }
        if let shards = response.shards { members.append(("shards", status(shards))) }
        return .object(members)
    }

    public static func search(_ response: Typeahead_V1_SearchResponse) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("hits", .array(response.hits.map(entry))),
            ("totalHits", .integer(Int64(response.totalHits))),
            ("facets", .array(response.facets.map { facet in
                .object([("name", .string(facet.name)), ("count", .integer(Int64(facet.count)))])
            })),
            ("nextPageToken", .string(response.nextPageToken)),
        ]
        if let shards = response.shards { members.append(("shards", status(shards))) }
        return .object(members)
    }

    public static func entry(_ hit: Typeahead_V1_EntryHit) -> JSONValue {
        .object([
            ("id", .string(hit.id)),
            ("title", .string(hit.title)),
            ("categories", .array(hit.categories.map { .string($0) })),
            ("weight", .unsigned(hit.weight)),
            ("attributes", .object(ProtoWriter.sortedKeys(hit.attributes).map { ($0, .string(hit.attributes[$0]!)) })),
            ("completion", .string(hit.completion)),
            ("highlights", .array(hit.highlights.map {
                .object([("start", .integer(Int64($0.start))), ("end", .integer(Int64($0.end)))])
            })),
        ])
    }

    public static func token(_ token: Typeahead_V1_SearchToken) -> JSONValue {
        .object([("kind", .string(token.kind)), ("value", .string(token.value))])
    }

    public static func status(_ shards: Typeahead_V1_ShardStatus) -> JSONValue {
        .object([
            ("total", .integer(Int64(shards.total))),
            ("succeeded", .integer(Int64(shards.succeeded))),
            ("failed", .integer(Int64(shards.failed))),
            ("failedShards", .array(shards.failedShards.map { .string($0) })),
            ("generation", .unsigned(shards.generation)),
        ])
    }
}
