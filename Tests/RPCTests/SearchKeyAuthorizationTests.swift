import Foundation
import HTTP2
import Observability
@testable import RPC
import Wire
import XCTest

/// A server that accepts search keys: which calls they open, what the method then sees, and the
/// refusals, over a real gRPC connection.
final class SearchKeyAuthorizationTests: XCTestCase {
    static let adminToken = "search-key-tests-admin-token-0123"
    static let readToken = "search-key-tests-read-token-01234"
    let current = Array("the-current-secret-of-thirty-two-bytes".utf8)
    let retired = Array("the-retired-secret-of-thirty-two-bytes".utf8)
    var servers: [RPCServer] = []
    var client: HTTP2Client!

    override func tearDown() {
        client?.shutdown()
        for server in servers { server.shutdown() }
    }

    /// A server whose Suggest answers with what it was given: the key's label as a completion and
    /// its tokens as the text of further completions.
    func start(secrets: [[UInt8]]) throws -> HTTP2ClientConnectionFactory {
        let methods: [RPCMethod] = [
            .unary(Typeahead_V1_TypeaheadService.suggest, access: .read, json: .suggest) { request, context, reply in
                let key = context.searchKey
                let tokens = request.restricted(to: key).tokens.map { Typeahead_V1_QueryCompletion(text: $0.kind + "=" + $0.value) }
                reply(.success(Typeahead_V1_SuggestResponse(completions: [.init(text: key?.label ?? "(no key)")] + tokens)))
            },
            .unary(Typeahead_V1_ShardService.stats, access: .admin) { _, _, reply in
                reply(.success(Typeahead_V1_StatsResponse(shard: "shard-1")))
            },
        ]
        var configuration = RPCServer.Configuration()
        configuration.threads = 1
        configuration.adminToken = Self.adminToken
        configuration.readToken = Self.readToken
        configuration.searchKeySecrets = secrets
        configuration.shutdownGrace = .milliseconds(200)
        let server = RPCServer(configuration: configuration, methods: methods, telemetry: ServerTelemetry(label: "test", sink: MemorySink()),
                               healthServices: [], isReady: { true })
        servers.append(server)
        let port = try server.start()
        if client == nil { client = try HTTP2Client() }
        return HTTP2ClientConnectionFactory(client: client, port: port)
    }

    struct HTTP2ClientConnectionFactory {
        let client: HTTP2Client
        let port: Int
        func suggest(_ text: String, bearer: String?) async -> Result<[String], GRPCStatus> {
            do {
                let connection = try await client.connect(host: "127.0.0.1", port: port)
                var request = Typeahead_V1_SuggestRequest(text: text)
                request.tokens = [.init(kind: "category", value: "Mine")]
                let answer = try await GRPCClient.call(Typeahead_V1_TypeaheadService.suggest, request, on: connection,
                                                       options: .init(bearerToken: bearer))
                return .success(answer.completions.map(\.text))
            } catch let status as GRPCStatus {
                return .failure(status)
            } catch {
                return .failure(GRPCStatus(.unavailable, "\(error)"))
            }
        }
    }

    func key(_ secret: [UInt8], expiresIn seconds: Int64 = 600, tokens: [String] = ["Acme"]) -> String {
        SearchKey(tokens: tokens.map { .init(kind: "category", value: $0) }, expires: Int64(Date().timeIntervalSince1970) + seconds,
                  label: "acme").signed(with: secret)
    }

    func testAKeyOpensReadsWithItsTokensForced() async throws {
        let server = try start(secrets: [current, retired])
        let answer = try await server.suggest("red", bearer: key(current)).get()
        XCTAssertEqual(answer, ["acme", "category=Mine", "category=Acme"], "the method sees the key; its token joins the request's")
        let rotated = try await server.suggest("red", bearer: key(retired)).get()
        XCTAssertEqual(rotated.first, "acme", "a secret being rotated out")
        let tokenOnly = try await server.suggest("red", bearer: Self.readToken).get()
        XCTAssertEqual(tokenOnly.first, "(no key)", "the read token still works")
    }

    func reason(_ result: Result<[String], GRPCStatus>) -> String? {
        guard case .failure(let status) = result else { return "answered" }
        XCTAssertEqual(status.code, .unauthenticated, "\(status)")
        return status.reason
    }

    func testForgedExpiredAndMisplacedKeysAreRefused() async throws {
        let server = try start(secrets: [current])
        for (bearer, expected) in [(key(retired), "SEARCH_KEY_FORGED"), (key(current, expiresIn: -1), "SEARCH_KEY_EXPIRED"),
                                   ("tsk1.garbage", "SEARCH_KEY_MALFORMED"), (nil, nil)] {
            // (No credential at all: the read token is required, a refusal without a reason.)
            let result = await server.suggest("red", bearer: bearer)
            XCTAssertEqual(reason(result), expected, bearer ?? "no credential")
        }
        // Admin methods never take a key, however valid.
        let connection = try await client.connect(host: "127.0.0.1", port: server.port)
        do {
            _ = try await GRPCClient.call(Typeahead_V1_ShardService.stats, Typeahead_V1_StatsRequest(), on: connection,
                                          options: .init(bearerToken: key(current)))
            XCTFail("a search key opened an admin method")
        } catch {
            XCTAssertEqual(error.code, .unauthenticated)
        }
        // A server without secrets cannot enforce a key's tokens: it refuses the key, never ignores it.
        let open = try start(secrets: [])
        guard case .failure(let status) = await open.suggest("red", bearer: key(current)) else { return XCTFail("a key was ignored") }
        XCTAssertEqual(status.code, .unauthenticated)
        XCTAssertTrue(status.message.contains("--search-key-secret-file"), status.message)
    }
}
