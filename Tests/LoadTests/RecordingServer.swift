import Dispatch
import Foundation
import HTTP2
import Observability
import RPC
import Synchronization
import Wire

/// An in-process Typeahead server for the load generator to hit: Suggest and Search record what
/// they receive, in arrival order, and answer by a rule on the revision, so the tests know exactly
/// what the report must count.
///
/// Suggest answers, by revision (first rule that applies): a multiple of `supersedeEvery` →
/// CANCELLED "superseded by …"; of `failEvery` → UNAVAILABLE; of `partialEvery` → an answer whose
/// shards say shard-1 failed; else a full answer from generation 7. Searches always answer.
final class RecordingServer: Sendable {
    struct Call: Sendable, Equatable {
        var kind: String          // "suggest" or "search"
        var session: String
        var revision: UInt64
        var text: String
        var requestID: String
    }

    struct Answers: Sendable, Equatable {
        var ok = 0
        var partial = 0
        var superseded = 0
        var unavailable = 0
    }

    struct Rules: Sendable {
        var supersedeEvery: UInt64 = 0
        var failEvery: UInt64 = 0
        var partialEvery: UInt64 = 0
        /// Answer after this long (from a dispatch queue), to have calls overlap.
        var delay: Duration = .zero
        var readToken: String?
        /// 0: any free port.
        var port = 0
    }

    let rules: Rules
    let calls = Mutex<[Call]>([])
    let answers = Mutex(Answers())
    let concurrent = Mutex((now: 0, maximum: 0))
    private let server: RPCServer
    let port: Int

    init(_ rules: Rules = Rules()) throws {
        self.rules = rules
        let box = Box()
        let methods: [RPCMethod] = [
            .unary(Typeahead_V1_TypeaheadService.suggest, access: .read, json: .suggest) { request, context, reply in
                box.server!.received(Call(kind: "suggest", session: request.session, revision: request.revision, text: request.text,
                                          requestID: context.requestID))
                box.server!.answer(reply) { server in server.suggest(request) }
            },
            .unary(Typeahead_V1_TypeaheadService.search, access: .read, json: .search) { request, context, reply in
                box.server!.received(Call(kind: "search", session: "", revision: 0, text: request.text, requestID: context.requestID))
                box.server!.answer(reply) { server in
                    server.answers.withLock { $0.ok += 1 }
                    return .success(Typeahead_V1_SearchResponse(totalHits: 1, shards: .init(total: 2, succeeded: 2, generation: 7)))
                }
            },
        ]
        var configuration = RPCServer.Configuration()
        configuration.port = rules.port
        configuration.threads = 2
        configuration.readToken = rules.readToken
        configuration.shutdownGrace = .milliseconds(200)
        server = RPCServer(configuration: configuration, methods: methods, telemetry: ServerTelemetry(label: "load-test", sink: MemorySink()),
                           healthServices: [Typeahead_V1_TypeaheadService.name], isReady: { true })
        port = try server.start()
        box.server = self
    }

    func shutdown() { server.shutdown() }

    /// Searches carry no session: their request id (`<session>/search`) names it.
    var sessions: [String: [Call]] {
        var bySession: [String: [Call]] = [:]
        for call in calls.withLock({ $0 }) {
            let session = call.kind == "suggest" ? call.session : String(call.requestID.split(separator: "/").dropLast().joined(separator: "/"))
            bySession[session, default: []].append(call)
        }
        return bySession
    }

    func count(_ kind: String) -> Int { calls.withLock { $0.filter { $0.kind == kind }.count } }

    private func received(_ call: Call) {
        calls.withLock { $0.append(call) }
        concurrent.withLock { state in
            state.now += 1
            state.maximum = max(state.maximum, state.now)
        }
    }

    private func answer<Response: Sendable>(_ reply: @escaping RPCMethod.Reply<Response>,
                                            _ body: @escaping @Sendable (RecordingServer) -> Result<Response, GRPCStatus>) {
        let finish: @Sendable () -> Void = { [self] in
            concurrent.withLock { $0.now -= 1 }
            reply(body(self))
        }
        if rules.delay > .zero {
            let (seconds, attoseconds) = rules.delay.components
            DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)),
                                              execute: finish)
        } else {
            finish()
        }
    }

    private func suggest(_ request: Typeahead_V1_SuggestRequest) -> Result<Typeahead_V1_SuggestResponse, GRPCStatus> {
        let revision = request.revision
        // Revision 0 (no session: the preflight) is always answered.
        func every(_ n: UInt64) -> Bool { n > 0 && revision > 0 && revision % n == 0 }
        if every(rules.supersedeEvery) {
            answers.withLock { $0.superseded += 1 }
            return .failure(GRPCStatus(.cancelled, "superseded by revision \(revision + 1) of session \"\(request.session)\""))
        }
        if every(rules.failEvery) {
            answers.withLock { $0.unavailable += 1 }
            return .failure(GRPCStatus(.unavailable, "test outage"))
        }
        let partial = every(rules.partialEvery)
        answers.withLock { answers in if partial { answers.partial += 1 } else { answers.ok += 1 } }
        let shards = partial ? Typeahead_V1_ShardStatus(total: 2, succeeded: 1, failed: 1, failedShards: ["shard-1"], generation: 7)
            : Typeahead_V1_ShardStatus(total: 2, succeeded: 2, generation: 7)
        return .success(Typeahead_V1_SuggestResponse(completions: [.init(text: request.text)], session: request.session,
                                                     revision: revision, shards: shards))
    }

    /// Lets the methods reach the server object created after them.
    private final class Box: @unchecked Sendable {
        // Written once before the server starts taking calls.
        var server: RecordingServer?
    }
}
