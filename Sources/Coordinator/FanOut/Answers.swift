import Index
import RPC
import Wire

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
    static func collect<Part>(_ results: [Result<[UInt8], GRPCStatus>], core: CoordinatorCore, generation: UInt64,
                              decode: ([UInt8]) throws -> (Part, UInt64)) -> Result<(parts: [Part], tally: Tally), GRPCStatus> {
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
                if ShardCall.isTheRequestsFault(status) { return .failure(status) }
                tally.failed(name, status)
            }
        }
        return .success((parts, tally))
    }

    static func suggest(_ results: [Result<[UInt8], GRPCStatus>], request: SuggestRequest, message: Typeahead_V1_SuggestRequest,
                        generation: UInt64, core: CoordinatorCore) -> Result<Typeahead_V1_SuggestResponse, GRPCStatus> {
        let collected = collect(results, core: core, generation: generation) { bytes in
            let part = try GRPCClient.decode(Typeahead_V1_ShardSuggestResponse.self, bytes, method: "ShardSuggest").get()
            return (try SuggestResponse(part), part.generation)
        }
        return collected.flatMap { parts, tally in
            tally.status(total: results.count, generation: generation, requireAll: message.requireAllShards).map { shards in
                var merge = SuggestMerge(request: request)
                for part in parts { merge.add(part) }
                var answer = merge.result()
                if merge.categoriesTruncated { core.telemetry.categoriesTruncated.increment() }
                if shards.failed > 0 { core.telemetry.partialSuggest.increment() }
                var presenter = Presenter(text: request.text, typos: request.typos)
                presenter.present(&answer)
                return Typeahead_V1_SuggestResponse(answer, session: message.session, revision: message.revision, shards: shards)
            }
        }
    }

    static func search(_ results: [Result<[UInt8], GRPCStatus>], request: SearchRequest, message: Typeahead_V1_SearchRequest,
                       generation: UInt64, core: CoordinatorCore) -> Result<Typeahead_V1_SearchResponse, GRPCStatus> {
        let collected = collect(results, core: core, generation: generation) { bytes in
            let part = try GRPCClient.decode(Typeahead_V1_ShardSearchResponse.self, bytes, method: "ShardSearch").get()
            return (try SearchResponse(part), part.generation)
        }
        return collected.flatMap { parts, tally in
            tally.status(total: results.count, generation: generation, requireAll: message.requireAllShards).flatMap { shards in
                var merge = SearchMerge(request: request)
                for part in parts { merge.add(part) }
                var answer: SearchResponse
                do throws(IndexError) { answer = try merge.result() } catch { return .failure(GRPCStatus(error)) }
                if shards.failed > 0 { core.telemetry.partialSearch.increment() }
                var presenter = Presenter(text: request.text, typos: request.typos)
                presenter.present(&answer)
                return .success(Typeahead_V1_SearchResponse(answer, shards: shards))
            }
        }
    }
}
