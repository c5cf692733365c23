import HTTP2
import Index
import RPC
import Services
import Wire
import WireConversions

/// The query path of one collection of a coordinator: a ``TypeaheadService`` (Suggest and
/// Search), from the client's message to the merged, presented answer, over the collection's
/// shards' ``ShardService``s (each shard call names the collection, whatever the client's
/// message said: "" reaches the default collection here, and the nodes must hear its name).
/// ``CollectionDispatch`` picks it by the message's collection. Holds every loop's state in an
/// immutable array, so a call finds its loop's state (routing view, links, latency windows) by
/// index, without a lock.
final class QueryRouter: TypeaheadService {
    let core: CoordinatorCore
    let states: [HTTP2LoopBound<LoopState>]

    init(core: CoordinatorCore, states: [HTTP2LoopBound<LoopState>]) {
        self.core = core
        self.states = states
    }

    /// The loop's own state: the call arrived on it, so this is an array read, not a lock.
    private func state(of context: CallContext) -> LoopState {
        states[context.responder.eventLoop.index].value
    }

    /// Replies with the answer encoded in the call's format.
    func suggest(_ message: Typeahead_V1_SuggestRequest, _ context: CallContext, _ reply: @escaping RPCMethod.Reply<[UInt8]>) {
        let request: SuggestRequest
        do { request = try SuggestRequest(message) } catch {
            reply(.failure(GRPCStatus(describing: error)))
            return
        }
        let core = self.core
        gatherSuggest(message, context) { gathered in
            reply(gathered.flatMap { Answers.suggest($0.results, request: request, message: message, generation: $0.generation,
                                                     format: context.format, core: core) })
        }
    }

    /// Replies with the answer encoded in the call's format.
    func search(_ message: Typeahead_V1_SearchRequest, _ context: CallContext, _ reply: @escaping RPCMethod.Reply<[UInt8]>) {
        let request: SearchRequest
        do { request = try SearchRequest(message) } catch {
            reply(.failure(GRPCStatus(describing: error)))
            return
        }
        let core = self.core
        gatherSearch(message, context) { gathered in
            reply(gathered.flatMap { Answers.search($0.results, request: request, message: message, generation: $0.generation,
                                                    format: context.format, core: core) })
        }
    }

    /// What one fan-out gathered: every shard's result (in shard order) and the generation they
    /// were asked for, still to be checked and merged (``Answers``).
    struct Gathered: Sendable {
        var results: [Result<ArraySlice<UInt8>, GRPCStatus>]
        var generation: UInt64
    }

    /// Fans a Suggest out to this collection's shards and hands over their results: what
    /// ``suggest(_:_:_:)`` answers from, and what a scoped call (``ScopeFederation``) merges with
    /// the other collections'. `message` has been validated; it reaches every shard naming this
    /// collection. `done` runs once, on the call's loop.
    func gatherSuggest(_ message: Typeahead_V1_SuggestRequest, _ context: CallContext,
                       _ done: @escaping @Sendable (Result<Gathered, GRPCStatus>) -> Void) {
        let core = self.core
        fanOut(context, defaultDeadline: core.settings.suggestDeadline, session: message.session, revision: message.revision,
               path: Typeahead_V1_ShardService.shardSuggest.path, reply: done) { generation in
            var part = Typeahead_V1_ShardSuggestRequest(request: message, generation: generation)
            part.request?.collection = core.collection
            return part.serializedBytes()
        }
    }

    /// As ``gatherSuggest(_:_:_:)``, for a Search (no session: a submit supersedes nothing).
    func gatherSearch(_ message: Typeahead_V1_SearchRequest, _ context: CallContext,
                      _ done: @escaping @Sendable (Result<Gathered, GRPCStatus>) -> Void) {
        let core = self.core
        fanOut(context, defaultDeadline: core.settings.searchDeadline, session: "", revision: 0,
               path: Typeahead_V1_ShardService.shardSearch.path, reply: done) { generation in
            var part = Typeahead_V1_ShardSearchRequest(request: message, generation: generation)
            part.request?.collection = core.collection
            return part.serializedBytes()
        }
    }

    /// The common path of Suggest and Search: pin the generation, admit the keystroke, fan out,
    /// and hand over the shards' results. Loop thread.
    private func fanOut(_ context: CallContext, defaultDeadline: Duration, session: String, revision: UInt64, path: String,
                        reply: @escaping RPCMethod.Reply<Gathered>, request: (UInt64) -> [UInt8]) {
        let state = self.state(of: context)
        guard let generation = state.view.generation else {
            reply(.failure(GRPCStatus(.unavailable, "the cluster is not ready: no index generation is served by its shards yet")))
            return
        }
        let now = state.clock.now
        let clientDeadline = context.deadline ?? now + defaultDeadline
        // The margin: the configured floor plus 5% of the time left, so a long call keeps more
        // room for merging and answering than a short one.
        let deadline = clientDeadline - core.settings.deadlineMargin - (clientDeadline - now) * 0.05
        guard deadline > now else {
            reply(.failure(GRPCStatus(.deadlineExceeded, "the deadline leaves no time for the shards")))
            return
        }
        let core = self.core
        let fanOut = FanOut(state: state, core: core, view: state.view, generation: generation, path: path,
                            framedRequest: GRPCFraming.frame(request(generation)), deadline: deadline,
                            requestID: context.requestID) { outcome in
            core.sessions.end(session: session, revision: revision)
            switch outcome {
            case .cancelled(.superseded):
                core.telemetry.superseded.increment()
                reply(.failure(GRPCStatus(.cancelled, "superseded by a newer keystroke of session \"\(session)\"")))
            case .cancelled:
                reply(.failure(GRPCStatus(.cancelled, "the client cancelled the call")))
            case .answered(let results):
                reply(.success(Gathered(results: results, generation: generation)))
            }
        }
        let loop = state.loop
        let bound = HTTP2LoopBound(fanOut, eventLoop: loop)
        if case .superseded(let newer) = core.sessions.begin(session: session, revision: revision,
                                                              cancel: { loop.execute { bound.value.cancel(.superseded) } }) {
            core.telemetry.superseded.increment()
            reply(.failure(GRPCStatus(.cancelled, "superseded by revision \(newer) of session \"\(session)\"")))
            return
        }
        context.responder.onCancel { loop.execute { bound.value.cancel(.client) } }
        fanOut.start()
    }
}
