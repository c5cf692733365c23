import Index

/// The proto3 JSON mapping (lowerCamelCase field names) of the client-facing responses.
///
/// Every field is written, defaults included, so that clients never have to know proto3's
/// "absent means default" rule. Weights are JSON numbers (the index keeps them below 2^53).
public enum ResponseJSON {
    public static func suggest(_ response: SuggestResponse) -> JSONValue {
        .object([
            ("entries", .array(response.entries.map(entry))),
            ("categories", .array(response.categories.map { category in
                .object([
                    ("name", .string(category.name)),
                    ("count", .integer(Int64(category.count))),
                    ("token", token(category.token)),
                    ("replacementText", .string(category.replacementText)),
                ])
            })),
            ("completions", .array(response.completions.map { completion in
                .object([("text", .string(completion.text))])
            })),
        ])
    }

    public static func search(_ response: SearchResponse) -> JSONValue {
        .object([
            ("hits", .array(response.hits.map(entry))),
            ("totalHits", .integer(Int64(response.totalHits))),
            ("facets", .array(response.facets.map { facet in
                .object([("name", .string(facet.name)), ("count", .integer(Int64(facet.count)))])
            })),
            ("nextPageToken", .string(response.nextPageToken ?? "")),
        ])
    }

    public static func entry(_ hit: EntryHit) -> JSONValue {
        .object([
            ("id", .string(hit.id)),
            ("title", .string(hit.title)),
            ("categories", .array(hit.categories.map { .string($0) })),
            ("weight", .unsigned(hit.weight)),
            ("attributes", .object(hit.attributes.map { ($0.key, .string($0.value)) })),
            ("completion", .string(hit.completion)),
            ("highlights", .array(hit.highlights.map { .object([("start", .integer(Int64($0.start))), ("end", .integer(Int64($0.end)))]) })),
        ])
    }

    public static func token(_ token: SearchToken) -> JSONValue {
        .object([("kind", .string(token.kind.rawValue)), ("value", .string(token.value))])
    }
}
