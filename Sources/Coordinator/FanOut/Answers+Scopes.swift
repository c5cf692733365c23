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
    /// One collection's share of a scoped call: its routing core and what its fan-out gathered
    /// (or why it gathered nothing).
    struct ScopedPart: Sendable {
        var core: CoordinatorCore
        var gathered: Result<QueryRouter.Gathered, GRPCStatus>
    }

    /// A collection's failure as the scoped call's: its code, the message naming the collection.
    static func scoped(_ status: GRPCStatus, collection: String) -> GRPCStatus {
        var failure = status
        failure.message = "collection \"\(collection)\": \(status.message)"
        return failure
    }

    /// Whether a collection's failure leaves its section empty (the call answering from the other
    /// collections) rather than failing the scoped call. Only a failure of the collection as a
    /// whole: UNAVAILABLE (no shard answered, or none serves a generation yet) or DEADLINE_EXCEEDED
    /// (none answered in time), what a call naming it alone would fail with while the others
    /// answer. Not when the request requires every shard (it asked to fail), nor a request's fault
    /// or a cancel, which every collection shares.
    static func failsItsSectionOnly(_ status: GRPCStatus, requireAll: Bool) -> Bool {
        !requireAll && (status.code == .unavailable || status.code == .deadlineExceeded)
    }

    /// Each part's shards' answers decoded (`parts`) and made its section (`section`), in order,
    /// with each section's error: a collection that failed as a whole (``failsItsSectionOnly(_:requireAll:)``)
    /// is `section` of no parts, its shards 0 of N, and its error. Fails the call naming the
    /// collection on any other failure, or with the first failure when every collection failed.
    /// The sections' views point into the decoded answers returned beside them: keep both alive
    /// together.
    private static func sections<Part, Section>(
        _ scoped: [ScopedPart], requireAll: Bool,
        parts: (QueryRouter.Gathered, CoordinatorCore) -> Result<(parts: [Part], shards: Typeahead_V1_ShardStatus), GRPCStatus>,
        section: ([Part], Typeahead_V1_ShardStatus, CoordinatorCore) -> Result<Section, GRPCStatus>
    ) -> Result<(decoded: [[Part]], sections: [Section], errors: [Typeahead_V1_SectionError?]), GRPCStatus> {
        var decoded: [[Part]] = []
        var sections: [Section] = []
        var errors: [Typeahead_V1_SectionError?] = []
        var firstFailure: GRPCStatus?
        for part in scoped {
            let core = part.core
            var error: Typeahead_V1_SectionError?
            let made = part.gathered.flatMap { parts($0, core) }.flatMap { partsOf, shards in
                decoded.append(partsOf)
                return section(partsOf, shards, core)
            }.flatMapError { status -> Result<Section, GRPCStatus> in
                let failure = Self.scoped(status, collection: core.collection)
                guard failsItsSectionOnly(status, requireAll: requireAll) else { return .failure(failure) }
                firstFailure = firstFailure ?? failure
                error = Typeahead_V1_SectionError(code: status.connectCode, message: status.message)
                let none = Typeahead_V1_ShardStatus(total: UInt32(core.shardNames.count), succeeded: 0, failed: UInt32(core.shardNames.count),
                                                    failedShards: core.shardNames, generation: 0)
                return section([], none, core).mapError { Self.scoped($0, collection: core.collection) }
            }
            switch made {
            case .success(let made): sections.append(made)
            case .failure(let status): return .failure(status)
            }
            errors.append(error)
        }
        if let firstFailure, errors.allSatisfy({ $0 != nil }) { return .failure(firstFailure) }
        return .success((decoded, sections, errors))
    }

    /// The scoped Suggest answer in `format`: `sections` (one per part, in order) and the merged
    /// `completions` of those that answered; a collection that failed as a whole is an empty
    /// section with its error, any other failure fails the call (naming it).
    static func scopedSuggest(_ scoped: [ScopedPart], request: SuggestRequest, message: Typeahead_V1_SuggestRequest,
                              format: WireFormat) -> Result<[UInt8], GRPCStatus> {
        let decoded: [[ShardSuggestResponseView]]
        let sections: [SuggestSection]
        let errors: [Typeahead_V1_SectionError?]
        switch Self.sections(scoped, requireAll: message.requireAllShards,
                             parts: { suggestParts($0.results, message: message, generation: $0.generation, core: $1) },
                             section: { suggestSection($0, shards: $1, request: request, core: $2) }) {
        case .success(let made): (decoded, sections, errors) = made
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
            response.sections = scoped.indices.map { index in
                let section = sections[index]
                return Typeahead_V1_SuggestSection(collection: scoped[index].core.collection,
                                                   entries: section.entries.map { Typeahead_V1_EntryHit(fields: $0) },
                                                   categories: section.categories, completions: section.completions, shards: section.shards,
                                                   error: errors[index])
            }
            switch format {
            case .protobuf: return .success(response.serializedBytes())
            case .json: return .success(ResponseJSON.suggest(response))
            }
        }
    }

    /// The scoped Search answer in `format`: one section per part, each its collection's first
    /// page (paged on by a Search naming that collection); failures as for a Suggest.
    static func scopedSearch(_ scoped: [ScopedPart], request: SearchRequest, message: Typeahead_V1_SearchRequest,
                             format: WireFormat) -> Result<[UInt8], GRPCStatus> {
        let decoded: [[ShardSearchResponseView]]
        let sections: [SearchSection]
        let errors: [Typeahead_V1_SectionError?]
        switch Self.sections(scoped, requireAll: message.requireAllShards,
                             parts: { searchParts($0.results, message: message, generation: $0.generation, core: $1) },
                             section: { searchSection($0, shards: $1, request: request, core: $2) }) {
        case .success(let made): (decoded, sections, errors) = made
        case .failure(let status): return .failure(status)
        }
        let response = withExtendedLifetime((decoded, scoped)) {
            Typeahead_V1_SearchResponse(sections: scoped.indices.map { index in
                let section = sections[index]
                return Typeahead_V1_SearchSection(collection: scoped[index].core.collection, hits: section.hits.map { Typeahead_V1_EntryHit(fields: $0) },
                                                  totalHits: section.rest.totalHits, facets: section.rest.facets,
                                                  nextPageToken: section.rest.nextPageToken, shards: section.rest.shards, error: errors[index])
            })
        }
        switch format {
        case .protobuf: return .success(response.serializedBytes())
        case .json: return .success(ResponseJSON.search(response))
        }
    }
}
