import Foundation
import HTTP2
import Observability
@testable import RPC
import Synchronization
import Wire
import XCTest

/// An RPCServer and GRPCClient talking over loopback: what both sides promise about statuses,
/// deadlines, cancellation, tokens and the JSON forms.
final class RPCServerClientTests: XCTestCase {
    static let adminToken = "rpc-tests-admin-token-0123456789"

    /// What the test methods saw, for the assertions.
    final class Observations: Sendable {
        let deadlines = Mutex<[ContinuousClock.Instant?]>([])
        let cancelled = Mutex<Int>(0)
        let requestIDs = Mutex<[String]>([])
    }

    var server: RPCServer!
    var client: HTTP2Client!
    var port = 0
    let seen = Observations()

    override func setUpWithError() throws {
        let seen = self.seen
        let methods: [RPCMethod] = [
            // Suggest echoes the text as a completion, fails on "fail", never answers "hang"
            // (until the caller goes away).
            .unary(Typeahead_V1_TypeaheadService.suggest, access: .read, json: .suggest) { request, context, reply in
                seen.deadlines.withLock { $0.append(context.deadline) }
                seen.requestIDs.withLock { $0.append(context.requestID) }
                switch request.text {
                case "fail": reply(.failure(GRPCStatus(.failedPrecondition, "refused: ünïcode % message")))
                case "fail with details":
                    reply(.failure(GRPCStatus(.failedPrecondition, "out of order",
                                              errorInfo: Google_Rpc_ErrorInfo(reason: "UPLOAD_BATCH_OUT_OF_ORDER", domain: "typeahead",
                                                                              metadata: ["expectedBatch": "12"]))))
                case "hang":
                    context.responder.onCancel { seen.cancelled.withLock { $0 += 1 } }
                default:
                    reply(.success(Typeahead_V1_SuggestResponse(completions: [.init(text: request.text)],
                                                                session: request.session, revision: request.revision)))
                }
            },
            .unary(Typeahead_V1_ShardService.stats, access: .admin) { _, _, reply in
                reply(.success(Typeahead_V1_StatsResponse(shard: "shard-7")))
            },
        ]
        var configuration = RPCServer.Configuration()
        configuration.port = 0
        configuration.threads = 1
        configuration.adminToken = Self.adminToken
        configuration.shutdownGrace = .milliseconds(200)
        server = RPCServer(configuration: configuration, methods: methods,
                           telemetry: ServerTelemetry(label: "test", sink: MemorySink()),
                           healthServices: [Typeahead_V1_TypeaheadService.name], isReady: { true })
        port = try server.start()
        client = try HTTP2Client()
    }

    override func tearDown() {
        client?.shutdown()
        server?.shutdown()
    }

    func connect() async throws -> HTTP2ClientConnection {
        try await client.connect(host: "127.0.0.1", port: port)
    }

    func testUnaryRoundTripAndEcho() async throws {
        let connection = try await connect()
        let answer = try await GRPCClient.call(Typeahead_V1_TypeaheadService.suggest,
                                               Typeahead_V1_SuggestRequest(text: "red sh", session: "s", revision: 9), on: connection,
                                               options: .init(requestID: "req-42"))
        XCTAssertEqual(answer.completions.map(\.text), ["red sh"])
        XCTAssertEqual(answer.session, "s")
        XCTAssertEqual(answer.revision, 9)
        XCTAssertEqual(seen.requestIDs.withLock { $0 }, ["req-42"])
    }

    func testErrorStatusAndMessageSurvive() async throws {
        let connection = try await connect()
        do {
            _ = try await GRPCClient.call(Typeahead_V1_TypeaheadService.suggest, Typeahead_V1_SuggestRequest(text: "fail"), on: connection)
            XCTFail("expected FAILED_PRECONDITION")
        } catch {
            XCTAssertEqual(error.code, .failedPrecondition)
            XCTAssertEqual(error.message, "refused: ünïcode % message")
        }
    }

    /// Structured details travel as google.rpc.Status in grpc-status-details-bin, and in the
    /// Connect error body's `details`; a status without them sends none.
    func testErrorDetailsSurvive() async throws {
        let connection = try await connect()
        do {
            _ = try await GRPCClient.call(Typeahead_V1_TypeaheadService.suggest, Typeahead_V1_SuggestRequest(text: "fail with details"),
                                          on: connection)
            XCTFail("expected FAILED_PRECONDITION")
        } catch {
            XCTAssertEqual(error.code, .failedPrecondition)
            XCTAssertEqual(error.reason, "UPLOAD_BATCH_OUT_OF_ORDER")
            XCTAssertEqual(error.errorInfo?.domain, "typeahead")
            XCTAssertEqual(error.errorInfo?.metadata, ["expectedBatch": "12"])
        }
        do {
            _ = try await GRPCClient.call(Typeahead_V1_TypeaheadService.suggest, Typeahead_V1_SuggestRequest(text: "fail"), on: connection)
        } catch {
            XCTAssertNil(error.errorInfo)
        }
        let json = try await connection.send(HTTP2ClientRequest(method: "POST", path: Typeahead_V1_TypeaheadService.suggest.path,
                                                                headers: [("content-type", "application/json")],
                                                                body: Array(#"{"text":"fail with details"}"#.utf8)))
        XCTAssertEqual(json.status, GRPCStatus(.failedPrecondition).httpStatus)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.body)) as? [String: Any])
        let detail = try XCTUnwrap((object["details"] as? [[String: Any]])?.first)
        XCTAssertEqual(detail["type"] as? String, "google.rpc.ErrorInfo")
        let value = try XCTUnwrap(GRPCClient.decodeBase64(try XCTUnwrap(detail["value"] as? String)))
        XCTAssertEqual(try Google_Rpc_ErrorInfo(serializedBytes: value).reason, "UPLOAD_BATCH_OUT_OF_ORDER")
        XCTAssertEqual((detail["debug"] as? [String: Any])?["reason"] as? String, "UPLOAD_BATCH_OUT_OF_ORDER")
    }

    func testUnknownMethodIsUnimplemented() async throws {
        let connection = try await connect()
        let unknown = ProtoMethod<Typeahead_V1_SuggestRequest, Typeahead_V1_SuggestResponse>(
            path: "/typeahead.v1.Typeahead/Nope", clientStreaming: false, serverStreaming: false)
        do {
            _ = try await GRPCClient.call(unknown, Typeahead_V1_SuggestRequest(), on: connection)
            XCTFail("expected UNIMPLEMENTED")
        } catch {
            XCTAssertEqual(error.code, .unimplemented)
        }
    }

    func testAdminMethodsNeedTheToken() async throws {
        let connection = try await connect()
        do {
            _ = try await GRPCClient.call(Typeahead_V1_ShardService.stats, Typeahead_V1_StatsRequest(), on: connection)
            XCTFail("expected UNAUTHENTICATED")
        } catch {
            XCTAssertEqual(error.code, .unauthenticated)
        }
        let stats = try await GRPCClient.call(Typeahead_V1_ShardService.stats, Typeahead_V1_StatsRequest(), on: connection,
                                              options: .init(bearerToken: Self.adminToken))
        XCTAssertEqual(stats.shard, "shard-7")
    }

    /// The timeout reaches the server as a deadline, and a call nobody answers fails locally with
    /// DEADLINE_EXCEEDED and resets its stream (the server sees the cancellation).
    func testTimeoutIsSentAndEnforced() async throws {
        let connection = try await connect()
        let before = ContinuousClock.now
        do {
            _ = try await GRPCClient.call(Typeahead_V1_TypeaheadService.suggest, Typeahead_V1_SuggestRequest(text: "hang"),
                                          on: connection, options: .init(timeout: .milliseconds(150)))
            XCTFail("expected DEADLINE_EXCEEDED")
        } catch {
            XCTAssertEqual(error.code, .deadlineExceeded, "\(error)")
        }
        XCTAssertLessThan(ContinuousClock.now - before, .seconds(10))
        let deadline = try XCTUnwrap(seen.deadlines.withLock { $0.first } ?? nil)
        XCTAssertLessThanOrEqual(deadline, before + .milliseconds(400))
        try await waitUntil { self.seen.cancelled.withLock { $0 } == 1 }
    }

    /// Cancelling the awaiting task resets the stream; the server's handler learns of it.
    func testTaskCancellationResetsTheStream() async throws {
        let connection = try await connect()
        let task = Task {
            try await GRPCClient.call(Typeahead_V1_TypeaheadService.suggest, Typeahead_V1_SuggestRequest(text: "hang"), on: connection)
        }
        try await waitUntil { self.seen.deadlines.withLock { $0.count } == 1 }
        task.cancel()
        do {
            _ = try await task.value
            XCTFail("expected CANCELLED")
        } catch let error as GRPCStatus {
            XCTAssertEqual(error.code, .cancelled)
        }
        try await waitUntil { self.seen.cancelled.withLock { $0 } == 1 }
    }

    /// Nothing listens on port 1: the connect fails (callers map it to UNAVAILABLE and try another replica).
    func testNoServerFailsToConnect() async throws {
        do {
            let connection = try await client.connect(host: "127.0.0.1", port: 1)
            _ = try await GRPCClient.call(Typeahead_V1_ShardService.stats, Typeahead_V1_StatsRequest(), on: connection)
            XCTFail("expected a failure")
        } catch let error as HTTP2ClientError {
            XCTAssertEqual(error.code, .connectFailed)
        }
    }

    /// JSON through the Connect POST and the GET convenience reach the same method.
    func testJSONFormsReachTheSameMethod() async throws {
        let connection = try await connect()
        let post = try await connection.send(HTTP2ClientRequest(method: "POST", path: Typeahead_V1_TypeaheadService.suggest.path,
                                                                headers: [("content-type", "application/json")],
                                                                body: Array(#"{"text":"gar","session":"x","revision":"3"}"#.utf8)))
        XCTAssertEqual(post.status, 200)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(post.body)) as? [String: Any])
        XCTAssertEqual((object["completions"] as? [[String: Any]])?.first?["text"] as? String, "gar")
        XCTAssertEqual(object["revision"] as? String, "3")

        // Media types are case-insensitive.
        let shouted = try await connection.send(HTTP2ClientRequest(method: "POST", path: Typeahead_V1_TypeaheadService.suggest.path,
                                                                   headers: [("content-type", "APPLICATION/JSON; charset=UTF-8")],
                                                                   body: Array(#"{"text":"gar"}"#.utf8)))
        XCTAssertEqual(shouted.status, 200)

        let get = try await connection.send(HTTP2ClientRequest(path: "/v1/suggest?q=gar"))
        XCTAssertEqual(get.status, 200)
        XCTAssertTrue(String(decoding: get.body, as: UTF8.self).contains(#""text":"gar""#))

        let unknown = try await connection.send(HTTP2ClientRequest(method: "POST", path: Typeahead_V1_TypeaheadService.suggest.path,
                                                                   headers: [("content-type", "application/json")],
                                                                   body: Array(#"{"txet":"gar"}"#.utf8)))
        XCTAssertEqual(unknown.status, 400)
        XCTAssertTrue(String(decoding: unknown.body, as: UTF8.self).contains("unknown field \\\"txet\\\""),
                      String(decoding: unknown.body, as: UTF8.self))
        let badLimit = try await connection.send(HTTP2ClientRequest(path: "/v1/suggest?q=gar&limit=-1"))
        XCTAssertEqual(badLimit.status, 400)
        // Form encoding: "+" is a space; a value that is not UTF-8 is refused by name.
        let plus = try await connection.send(HTTP2ClientRequest(path: "/v1/suggest?q=red+sh"))
        XCTAssertEqual(plus.status, 200)
        XCTAssertTrue(String(decoding: plus.body, as: UTF8.self).contains(#""text":"red sh""#), String(decoding: plus.body, as: UTF8.self))
        let notUTF8 = try await connection.send(HTTP2ClientRequest(path: "/v1/suggest?q=knife%FF"))
        XCTAssertEqual(notUTF8.status, 400)
        XCTAssertTrue(String(decoding: notUTF8.body, as: UTF8.self).contains(#"query parameter \"q\""#), String(decoding: notUTF8.body, as: UTF8.self))
        let search = try await connection.send(HTTP2ClientRequest(path: "/v1/search?q=gar"))
        // The RPC layer knows only the GET paths its methods register: this server has no Search.
        XCTAssertEqual(search.status, 404, "a server without Search has no /v1/search")
        let searchJSON = try await connection.send(HTTP2ClientRequest(method: "POST", path: Typeahead_V1_TypeaheadService.search.path,
                                                                      headers: [("content-type", "application/json")], body: Array("{}".utf8)))
        XCTAssertEqual(searchJSON.status, 501, "a method it does not serve is UNIMPLEMENTED")
    }

    func testOperatorEndpoints() async throws {
        let connection = try await connect()
        for (path, status) in [("/healthz", 200), ("/readyz", 200), ("/metrics", 200), ("/nope", 404)] {
            let response = try await connection.send(HTTP2ClientRequest(path: path))
            XCTAssertEqual(response.status, status, path)
        }
        _ = try await GRPCClient.call(Typeahead_V1_TypeaheadService.suggest, Typeahead_V1_SuggestRequest(text: "x"), on: connection)
        let metrics = String(decoding: try await connection.send(HTTP2ClientRequest(path: "/metrics")).body, as: UTF8.self)
        XCTAssertTrue(metrics.contains(#"typeahead_requests_total{method="/typeahead.v1.Typeahead/Suggest",code="OK"} 1"#), metrics)
        // A health check is counted like any call, and leaves nothing in flight.
        _ = try await GRPCClient.call(Grpc_Health_V1_HealthService.check, Grpc_Health_V1_HealthCheckRequest(), on: connection)
        let after = String(decoding: try await connection.send(HTTP2ClientRequest(path: "/metrics")).body, as: UTF8.self)
        XCTAssertTrue(after.contains(#"typeahead_requests_total{method="/grpc.health.v1.Health/Check",code="OK"} 1"#), after)
        XCTAssertTrue(after.contains(#"typeahead_requests_in_flight{method="/grpc.health.v1.Health/Check"} 0"#), after)
    }

    func waitUntil(timeout: Duration = .seconds(10), _ condition: @escaping () -> Bool) async throws {
        let end = ContinuousClock.now + timeout
        while !condition() {
            guard ContinuousClock.now < end else {
                XCTFail("condition not met within \(timeout)")
                return
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
