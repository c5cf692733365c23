import Dispatch
import Foundation
import HTTP2
import Index
import Observability
import Wire

/// The GET side of a node: JSON conveniences for people and curl, and the operator endpoints.
///
/// | path | answer |
/// |---|---|
/// | `/v1/suggest?q=TEXT[&limit=N][&typos=off][&dedupe=false][&token=category:NAME]…` | the suggest JSON (as `typeahead suggest --json`) |
/// | `/v1/search?q=TEXT[&pageSize=N][&pageToken=T][&sort=weight][&facets=false][&token=…]` | the search JSON |
/// | `/healthz` | 200 while the process serves |
/// | `/readyz` | 200 when a generation is active and the node is not shutting down, else 503 |
/// | `/metrics` | Prometheus text format |
enum HTTPEndpoints {
    static func handle(_ request: HTTP2Request, path: String, node: NodeServer, responder: HTTP2Responder) {
        let started = ContinuousClock.now
        let items = URLComponents(string: "http://node" + request.path)?.queryItems ?? []
        switch path {
        case "/healthz":
            responder.respond(status: 200, headers: [("content-type", "text/plain")], body: Array("ok\n".utf8))
        case "/readyz":
            let ready = node.isReady
            responder.respond(status: ready ? 200 : 503, headers: [("content-type", "text/plain")],
                              body: Array((ready ? "ready\n" : "not ready\n").utf8))
        case "/metrics":
            // Not on the event loop: the connection gauges call HTTP2Server.statistics(), which
            // queues a task on every loop and waits for them all, so calling it from a loop thread
            // waits for itself forever (wedging that loop, every connection on it, and shutdown).
            DispatchQueue.global(qos: .utility).async {
                responder.respond(status: 200, headers: [("content-type", "text/plain; version=0.0.4")],
                                  body: Array(node.telemetry.exposition().utf8))
            }
        case "/v1/suggest", "/v1/search":
            let method = path == "/v1/suggest" ? Typeahead_V1_TypeaheadService.suggest.path : Typeahead_V1_TypeaheadService.search.path
            let label = "GET " + path
            node.telemetry.started(method: label)
            let finish: @Sendable (String, GRPCStatus, [UInt8]?) -> Void = { _, status, body in
                ConnectJSON.send(status, body: body, to: responder)
                node.telemetry.finished(method: label, status: status, since: started, requestID: request.header("x-request-id") ?? "")
            }
            if let refusal = node.method(method).flatMap({ node.authorize($0, request.header("authorization")) }) {
                finish(label, refusal, nil)
                return
            }
            let shard = node.shard
            let responderRef = responder
            let work: @Sendable () -> Void = {
                do {
                    let context = CallContext(requestID: "", deadline: nil, responder: responderRef)
                    if path == "/v1/suggest" {
                        let suggest = try JSONRequests.suggest(query: items)
                        let response = try Services.run(context) { try shard.suggest(suggest, shouldStop: context.shouldStop) }
                        finish(label, .ok, Array((ResponseJSON.suggest(response).serialized() + "\n").utf8))
                    } else {
                        let search = try JSONRequests.search(query: items)
                        let response = try Services.run(context) { try shard.search(search, shouldStop: context.shouldStop) }
                        finish(label, .ok, Array((ResponseJSON.search(response).serialized() + "\n").utf8))
                    }
                } catch {
                    finish(label, GRPCStatus(describing: error), nil)
                }
            }
            node.dispatch(path == "/v1/suggest" ? .inline : .readPool, path: label, finish: finish, work)
        default:
            responder.respond(status: 404, headers: [("content-type", "text/plain")], body: Array("not found: \(path)\n".utf8))
        }
    }
}

/// The Connect protocol's unary JSON: POST the method path with `content-type: application/json`;
/// the answer is the response message's JSON, or `{"code": "...", "message": "..."}` with the
/// HTTP status Connect pairs with the code. Only the client-facing methods speak JSON.
enum ConnectJSON {
    static func handle(_ request: HTTP2Request, path: String, node: NodeServer, responder: HTTP2Responder) {
        let started = ContinuousClock.now
        let finish: @Sendable (String, GRPCStatus, [UInt8]?) -> Void = { method, status, body in
            send(status, body: body, to: responder)
            node.telemetry.finished(method: method, status: status, since: started, requestID: request.header("x-request-id") ?? "")
        }
        let isSuggest = path == Typeahead_V1_TypeaheadService.suggest.path
        guard isSuggest || path == Typeahead_V1_TypeaheadService.search.path, let method = node.method(path) else {
            finish(path, GRPCStatus(.unimplemented, "\(path) has no JSON form; use gRPC"), nil)
            return
        }
        node.telemetry.started(method: path)
        if let refusal = node.authorize(method, request.header("authorization")) {
            finish(path, refusal, nil)
            return
        }
        guard request.body.count <= node.configuration.maximumMessageBytes else {
            finish(path, GRPCStatus(.resourceExhausted, "request body over \(node.configuration.maximumMessageBytes) bytes"), nil)
            return
        }
        var deadline: ContinuousClock.Instant?
        if let millis = request.header("connect-timeout-ms").flatMap(Int64.init) { deadline = started.advanced(by: .milliseconds(millis)) }
        let context = CallContext(requestID: request.header("x-request-id") ?? RequestID.next().description, deadline: deadline, responder: responder)
        let shard = node.shard
        let body = request.body
        let work: @Sendable () -> Void = {
            do {
                let object = try JSONRequests.object(body)
                if isSuggest {
                    let (suggest, session, revision) = try JSONRequests.suggest(object)
                    let response = try Services.run(context) { try shard.suggest(suggest, shouldStop: context.shouldStop) }
                    let message = Typeahead_V1_SuggestResponse(response, session: session, revision: revision, shards: .singleNode)
                    finish(path, .ok, Array(ResponseJSON.suggest(message).serialized().utf8))
                } else {
                    let search = try JSONRequests.search(object)
                    let response = try Services.run(context) { try shard.search(search, shouldStop: context.shouldStop) }
                    finish(path, .ok, Array(ResponseJSON.search(Typeahead_V1_SearchResponse(response, shards: .singleNode)).serialized().utf8))
                }
            } catch {
                finish(path, GRPCStatus(describing: error), nil)
            }
        }
        node.dispatch(method.placement, path: path, finish: finish, work)
    }

    static func send(_ status: GRPCStatus, body: [UInt8]?, to responder: HTTP2Responder) {
        if status.code == .ok, let body {
            responder.respond(status: 200, headers: [("content-type", "application/json")], body: body)
        } else {
            let error = JSONValue.object([("code", .string(status.connectCode)), ("message", .string(status.message))])
            responder.respond(status: status.httpStatus, headers: [("content-type", "application/json")],
                              body: Array((error.serialized() + "\n").utf8))
        }
    }
}
