import Index
import RPC
import Wire
import WireConversions

/// The shards' results of one fan-out turned into the client's answer: every shard answer decoded
/// and checked (it must come from the pinned generation), merged, presented for the client's text,
/// and labelled with which shards answered.
enum Answers {
    /// Which shards answered, or why the call fails as a whole.
    struct Tally {
        var succeeded = 0
        var failedShards: [String] = []
        var firstFailure: GRPCStatus?
        var allFailuresAreDeadlines = true

        mutating func failed(_ name: String, _ status: GRPCStatus) {
            failedShards.append(name)
            firstFailure = firstFailure ?? status
            if status.code != .deadlineExceeded { allFailuresAreDeadlines = false }
        }

        /// The shard status of an answer, or the failure of a call nobody (or not everybody, when
        /// required) answered.
        func status(total: Int, generation: UInt64, requireAll: Bool) -> Result<Typeahead_V1_ShardStatus, GRPCStatus> {
            if succeeded == 0 {
                let code: GRPCStatus.Code = allFailuresAreDeadlines ? .deadlineExceeded : .unavailable
                return .failure(GRPCStatus(code, "no shard answered (\(failedShards.joined(separator: ", "))): \(firstFailure?.message ?? "")"))
            }
            if requireAll, !failedShards.isEmpty {
                return .failure(GRPCStatus(.unavailable, "\(failedShards.joined(separator: ", ")) did not answer and the request requires every "
                                                          + "shard: \(firstFailure?.message ?? "")"))
            }
            return .success(Typeahead_V1_ShardStatus(total: UInt32(total), succeeded: UInt32(succeeded),
                                                     failed: UInt32(failedShards.count), failedShards: failedShards,
                                                     generation: generation))
        }
    }

    /// Decodes each shard's answer with `decode`; a result that fails to decode or comes from
    /// another generation counts as that shard's failure. Statuses every replica would give alike
    /// (an invalid request) fail the whole call.
    static func collect<Part>(_ results: [Result<ArraySlice<UInt8>, GRPCStatus>], core: CoordinatorCore, generation: UInt64,
                              decode: (ArraySlice<UInt8>) throws -> (Part, UInt64)) -> Result<(parts: [Part], tally: Tally), GRPCStatus> {
        var parts: [Part] = []
        var tally = Tally()
        for (shard, result) in results.enumerated() {
            let name = core.shardNames[shard]
            switch result {
            case .success(let bytes):
                do {
                    let (part, answered) = try decode(bytes)
                    guard answered == generation else {
                        tally.failed(name, GRPCStatus(.internal, "\(name) answered from generation \(answered), not \(generation)"))
                        continue
                    }
                    parts.append(part)
                    tally.succeeded += 1
                } catch {
                    tally.failed(name, GRPCStatus(.internal, "\(name) sent an answer that does not hold: \(error)"))
                }
            case .failure(let status):
                if ShardCallMachine.isTheRequestsFault(status) { return .failure(status) }
                tally.failed(name, status)
            }
        }
        return .success((parts, tally))
    }

    /// The shards' answers decoded, with the status of the shards (or the failure of the call).
    static func answered<Part>(_ results: [Result<ArraySlice<UInt8>, GRPCStatus>], core: CoordinatorCore, generation: UInt64, requireAll: Bool,
                               decode: (ArraySlice<UInt8>) throws -> (Part, UInt64)) -> Result<(parts: [Part], shards: Typeahead_V1_ShardStatus), GRPCStatus> {
        collect(results, core: core, generation: generation, decode: decode).flatMap { parts, tally in
            tally.status(total: results.count, generation: generation, requireAll: requireAll).map { (parts, $0) }
        }
    }

    /// One collection's merged and presented Suggest. Its views point into the shards' answers it
    /// was made from: keep those alive while it is used. `completionFacts` are the merged
    /// completions as facts (in completion order), what a scope's merge orders across collections.
    struct SuggestSection {
        var entries: [PresentedHit]
        var categories: [Typeahead_V1_CategorySuggestion]
        var completions: [Typeahead_V1_QueryCompletion]
        var completionFacts: [RankedCompletionView]
        var shards: Typeahead_V1_ShardStatus
    }

    /// One collection's merged and presented Search page (its views point into the shards' answers).
    struct SearchSection {
        var hits: [PresentedHit]
        /// Every field but the hits.
        var rest: Typeahead_V1_SearchResponse
    }

    /// The shards' Suggest answers decoded and checked, with the status of the shards.
    static func suggestParts(_ results: [Result<ArraySlice<UInt8>, GRPCStatus>], message: Typeahead_V1_SuggestRequest, generation: UInt64,
                             core: CoordinatorCore) -> Result<(parts: [ShardSuggestResponseView], shards: Typeahead_V1_ShardStatus), GRPCStatus> {
        answered(results, core: core, generation: generation, requireAll: message.requireAllShards) { bytes in
            let part = try ShardSuggestResponseView(bytes)
            return (part, part.generation)
        }
    }

    /// The shards' Search answers decoded and checked, with the status of the shards.
    static func searchParts(_ results: [Result<ArraySlice<UInt8>, GRPCStatus>], message: Typeahead_V1_SearchRequest, generation: UInt64,
                            core: CoordinatorCore) -> Result<(parts: [ShardSearchResponseView], shards: Typeahead_V1_ShardStatus), GRPCStatus> {
        answered(results, core: core, generation: generation, requireAll: message.requireAllShards) { bytes in
            let part = try ShardSearchResponseView(bytes)
            return (part, part.generation)
        }
    }

    static func suggest(_ results: [Result<ArraySlice<UInt8>, GRPCStatus>], request: SuggestRequest, message: Typeahead_V1_SuggestRequest,
                        generation: UInt64, format: WireFormat, core: CoordinatorCore) -> Result<[UInt8], GRPCStatus> {
        suggestParts(results, message: message, generation: generation, core: core).flatMap { parts, shards in
            // The merge's facts point into the parts' buffers: they must outlive everything below.
            withExtendedLifetime(parts) {
                suggestSection(parts, shards: shards, request: request, core: core).map { section in
                    let rest = Typeahead_V1_SuggestResponse(categories: section.categories, completions: section.completions,
                                                            session: message.session, revision: message.revision, shards: section.shards)
                    switch format {
                    case .protobuf: return ResponseProto.suggest(entries: section.entries, rest: rest)
                    case .json: return ResponseJSON.suggest(entries: section.entries, rest: rest)
                    }
                }
            }
        }
    }

    /// One collection's shards' parts merged (``SuggestMerge``) and presented for the client's text.
    static func suggestSection(_ parts: [ShardSuggestResponseView], shards: Typeahead_V1_ShardStatus, request: SuggestRequest,
                               core: CoordinatorCore) -> Result<SuggestSection, GRPCStatus> {
        var merge = SuggestMerge<RankedEntryView, RankedCompletionView, RankedCategoryView>(request: request, shards: parts.count)
        do throws(IndexError) {
            for part in parts {
                try RankedEntryView.checkMergeable(part.entries, field: "entries")
                try RankedCompletionView.checkMergeable(part.completions)
                try RankedCategoryView.checkMergeable(part.categories)
                merge.add(entries: part.entries, completions: part.completions, categories: part.categories,
                          truncated: part.categoriesTruncated)
            }
        } catch {
            return .failure(GRPCStatus(.internal, "a shard sent an answer that does not hold: \(error)"))
        }
        let merged = merge.merged()
        if merged.categoriesTruncated { core.telemetry.categoriesTruncated.increment() }
        if shards.failed > 0 { core.telemetry.partialSuggest.increment() }
        var presenter = Presenter(text: request.text, typos: request.typos)
        let completions = presentCompletions(merged.completions, presenter: &presenter)
        let categories = merged.categories.map { category in
            let name = String(decoding: category.name, as: UTF8.self)
            // The kind was checked (``RankedCategoryView/checkMergeable(_:)``).
            let kind = SearchToken.Kind(String(decoding: category.kind, as: UTF8.self))
            var presented = CategorySuggestion(name: name, count: category.mergeCount, token: SearchToken(kind: kind, value: name),
                                               replacementText: "", typos: category.mergeTypos)
            presenter.present(&presented)
            return Typeahead_V1_CategorySuggestion(presented)
        }
        // Every shard sent its hits' highlights (nodes of this version do): forward them.
        let highlighted = parts.allSatisfy(\.hitsHighlighted)
        let entries = merged.entries.map { presenter.present($0, highlighted: highlighted) }
        return .success(SuggestSection(entries: entries, categories: categories, completions: completions,
                                       completionFacts: merged.completions, shards: shards))
    }

    /// Merged completions as the client sees them: the text with the partial word completed.
    static func presentCompletions(_ completions: [RankedCompletionView], presenter: inout Presenter) -> [Typeahead_V1_QueryCompletion] {
        // Checked mergeable: every completion has its best entry's key.
        let none = UnsafeRawBufferPointer(start: nil, count: 0)
        let order = PresentedCompletionOrder.order(
            count: completions.count,
            sameRun: { completions[$0].typos == completions[$1].typos && (completions[$0].best?.id ?? none).elementsEqual(completions[$1].best?.id ?? none) },
            isTitleWord: { PresentedCompletionOrder.isWord(completions[$0].term, of: completions[$0].best?.sortTitle ?? none) })
        return (order?.map { completions[$0] } ?? completions).map { completion in
            Typeahead_V1_QueryCompletion(text: presenter.completionText(spelling: String(decoding: completion.spelling, as: UTF8.self)))
        }
    }

    static func search(_ results: [Result<ArraySlice<UInt8>, GRPCStatus>], request: SearchRequest, message: Typeahead_V1_SearchRequest,
                       generation: UInt64, format: WireFormat, core: CoordinatorCore) -> Result<[UInt8], GRPCStatus> {
        searchParts(results, message: message, generation: generation, core: core).flatMap { parts, shards in
            withExtendedLifetime(parts) {
                searchSection(parts, shards: shards, request: request, core: core).map { section in
                    switch format {
                    case .protobuf: return ResponseProto.search(hits: section.hits, rest: section.rest)
                    case .json: return ResponseJSON.search(hits: section.hits, rest: section.rest)
                    }
                }
            }
        }
    }

    /// One collection's shards' pages merged (``SearchMerge``) and presented for the client's text.
    static func searchSection(_ parts: [ShardSearchResponseView], shards: Typeahead_V1_ShardStatus, request: SearchRequest,
                              core: CoordinatorCore) -> Result<SearchSection, GRPCStatus> {
        // The next page's token names the collection, as its own node's would (a request naming
        // none reads the default, by its name).
        var request = request
        request.collection = core.collection
        var merge = SearchMerge<RankedEntryView>(request: request)
        do throws(IndexError) {
            for part in parts {
                try RankedEntryView.checkMergeable(part.hits, field: "hits")
                merge.add(hits: part.hits, totalHits: Int(part.totalHits),
                          facets: part.facets.map { Facet(name: $0.name, count: Int($0.count)) }, hasMore: !part.nextPageToken.isEmpty)
            }
        } catch {
            return .failure(GRPCStatus(.internal, "a shard sent an answer that does not hold: \(error)"))
        }
        let merged: SearchMerge<RankedEntryView>.Result
        do throws(IndexError) { merged = try merge.merged() } catch { return .failure(GRPCStatus(error)) }
        if shards.failed > 0 { core.telemetry.partialSearch.increment() }
        var presenter = Presenter(text: request.text, typos: request.typos)
        let hits = merged.hits.map { presenter.present($0, highlighted: false) }
        let rest = Typeahead_V1_SearchResponse(totalHits: UInt32(clamping: merged.totalHits), facets: merged.facets.map(Typeahead_V1_Facet.init),
                                               nextPageToken: merged.nextPageToken ?? "", shards: shards)
        return .success(SearchSection(hits: hits, rest: rest))
    }
}
