import Index
import RPC
import Wire

/// A scoped (federated) answer: each collection of the scope answered as a call naming it alone
/// would (``Answers/suggestSection(_:shards:request:core:)``), one section each in the scope's
/// order; a Suggest's completions merged across the sections by the one completion order, with
/// the same merge that joins shards (``SuggestMerge``, entries and chips left out).
///
/// Why the merged completions are exact: each section holds its collection's best
/// `limits.completions` distinct words in completion order, and a word's key is its best entry's
/// (across the scope, the best of its per-collection bests). The k-th word of the whole scope
/// is, within its best entry's collection, among that collection's first k: so it is in that
/// section, with that key — the shards' argument (``SuggestMerge``) with collections for shards.
extension Answers {
    /// One collection's share of a scoped call: its routing core and what its fan-out gathered.
    struct ScopedPart: Sendable {
        var core: CoordinatorCore
        var gathered: QueryRouter.Gathered
    }

    /// A collection's failure as the scoped call's: its code, the message naming the collection.
    static func scoped(_ status: GRPCStatus, collection: String) -> GRPCStatus {
        var failure = status
        failure.message = "collection \"\(collection)\": \(status.message)"
        return failure
    }

    /// Each part's shards' answers decoded (`parts`) and made its section (`section`), in order;
    /// the first failure fails the call, naming its collection. The sections' views point into
    /// the decoded answers returned beside them: keep both alive together.
    private static func sections<Part, Section>(
        _ scoped: [ScopedPart],
        parts: (ScopedPart) -> Result<(parts: [Part], shards: Typeahead_V1_ShardStatus), GRPCStatus>,
        section: ([Part], Typeahead_V1_ShardStatus, CoordinatorCore) -> Result<Section, GRPCStatus>
    ) -> Result<([[Part]], [Section]), GRPCStatus> {
        var decoded: [[Part]] = []
        var sections: [Section] = []
        for part in scoped {
            let made = parts(part).flatMap { partsOf, shards in
                decoded.append(partsOf)
                return section(partsOf, shards, part.core)
            }
            switch made {
            case .success(let made): sections.append(made)
            case .failure(let status): return .failure(Self.scoped(status, collection: part.core.collection))
            }
        }
        return .success((decoded, sections))
    }

    /// The scoped Suggest answer in `format`: `sections` (one per part, in order) and the merged
    /// `completions`; any collection's failure fails the call (naming it).
    static func scopedSuggest(_ scoped: [ScopedPart], request: SuggestRequest, message: Typeahead_V1_SuggestRequest,
                              format: WireFormat) -> Result<[UInt8], GRPCStatus> {
        let decoded: [[ShardSuggestResponseView]]
        let sections: [SuggestSection]
        switch Self.sections(scoped, parts: { suggestParts($0.gathered.results, message: message, generation: $0.gathered.generation, core: $0.core) },
                             section: { suggestSection($0, shards: $1, request: request, core: $2) }) {
        case .success(let made): (decoded, sections) = made
        case .failure(let status): return .failure(status)
        }
        // The sections' views point into the shards' answers: keep them until the bytes are written.
        return withExtendedLifetime((decoded, scoped)) {
            var completionsOnly = request
            completionsOnly.limits = SuggestLimits(entries: 0, categories: 0, completions: request.limits.completions)
            var merge = SuggestMerge<RankedEntryView, RankedCompletionView, RankedCategoryView>(request: completionsOnly,
                                                                                               shards: sections.count)
            for section in sections { merge.add(entries: [], completions: section.completionFacts, categories: [], truncated: false) }
            var presenter = Presenter(text: request.text, typos: request.typos)
            var response = Typeahead_V1_SuggestResponse(completions: presentCompletions(merge.merged().completions, presenter: &presenter),
                                                        session: message.session, revision: message.revision)
            response.sections = zip(scoped, sections).map { part, section in
                Typeahead_V1_SuggestSection(collection: part.core.collection, entries: section.entries.map { Typeahead_V1_EntryHit(fields: $0) },
                                            categories: section.categories, completions: section.completions, shards: section.shards)
            }
            switch format {
            case .protobuf: return .success(response.serializedBytes())
            case .json: return .success(ResponseJSON.suggest(response))
            }
        }
    }

    /// The scoped Search answer in `format`: one section per part, each its collection's first
    /// page (paged on by a Search naming that collection); any collection's failure fails the call.
    static func scopedSearch(_ scoped: [ScopedPart], request: SearchRequest, message: Typeahead_V1_SearchRequest,
                             format: WireFormat) -> Result<[UInt8], GRPCStatus> {
        let decoded: [[ShardSearchResponseView]]
        let sections: [SearchSection]
        switch Self.sections(scoped, parts: { searchParts($0.gathered.results, message: message, generation: $0.gathered.generation, core: $0.core) },
                             section: { searchSection($0, shards: $1, request: request, core: $2) }) {
        case .success(let made): (decoded, sections) = made
        case .failure(let status): return .failure(status)
        }
        let response = withExtendedLifetime((decoded, scoped)) {
            Typeahead_V1_SearchResponse(sections: zip(scoped, sections).map { part, section in
                Typeahead_V1_SearchSection(collection: part.core.collection, hits: section.hits.map { Typeahead_V1_EntryHit(fields: $0) },
                                           totalHits: section.rest.totalHits, facets: section.rest.facets,
                                           nextPageToken: section.rest.nextPageToken, shards: section.rest.shards)
            })
        }
        switch format {
        case .protobuf: return .success(response.serializedBytes())
        case .json: return .success(ResponseJSON.search(response))
        }
    }
}
