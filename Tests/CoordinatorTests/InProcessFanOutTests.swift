import Catalog
import Cluster
@testable import Coordinator
import Index
import RPC
import TestSupport
import Wire
import WireConversions
import XCTest

/// The coordinator's whole query path (fan-out, hedging, failover, supersession, deadlines,
/// merging, presenting) over real nodes' services in this process (``InProcessCluster``), with a
/// clock that moves only when the test says: every decision is taken at an exact instant, and
/// checked against what a node holding the whole catalog answers. The netns and loopback tests
/// prove the same over sockets.
final class InProcessFanOutTests: XCTestCase {
    static let seed: UInt64 = 0x1A_2B_3C

    func entries(_ count: Int = 300) -> (entries: [CatalogEntry], catalog: RandomCatalog, rng: SeededGenerator) {
        var rng = SeededGenerator(seed: Self.seed)
        var catalog = RandomCatalog(vocabularySize: 30, rng: &rng)
        let entries = catalog.randomEntries(count, &rng)
        return (entries, catalog, rng)
    }

    func settings(hedgeDelay: Duration? = nil) -> ClusterFile.Settings {
        var settings = ClusterFile.Settings()
        settings.hedgeDelay = hedgeDelay
        settings.suggestDeadline = .seconds(5)
        settings.failuresToMarkDown = 1
        return settings
    }

    func decodeSuggest(_ result: Result<[UInt8], GRPCStatus>?, file: StaticString = #filePath, line: UInt = #line) throws -> Typeahead_V1_SuggestResponse {
        let bytes = try XCTUnwrap(result, "no answer yet", file: file, line: line).get()
        return try RPCMethod.decode(Typeahead_V1_SuggestResponse.self, bytes[...])
    }

    /// The answer without its shard status (which a single node reports differently).
    func content(_ response: Typeahead_V1_SuggestResponse) -> Typeahead_V1_SuggestResponse {
        var copy = response
        copy.shards = nil
        return copy
    }

    /// A keystroke: the first two letters of a title's first word.
    var message: Typeahead_V1_SuggestRequest {
        let title = entries().entries[0].title.lowercased()
        return Typeahead_V1_SuggestRequest(text: String(title.prefix(2)))
    }

    // MARK: Equivalence

    /// Through the in-process transport, 3 shards × 2 replicas answer random Suggests and Searches
    /// exactly as one node over the whole catalog does.
    func testAnswersEqualOneNodeHoldingTheCatalog() throws {
        var (entries, catalog, rng) = self.entries(400)
        let cluster = try InProcessCluster(entries: entries, shards: 3, replicas: 2, settings: settings())
        let requests = Workload.suggestRequests(entries: entries, categories: catalog.categories, vocabulary: catalog.vocabulary,
                                                count: 150, &rng)
        var answered = 0
        for request in requests {
            let message = Typeahead_V1_SuggestRequest(request)
            let answer = try decodeSuggest(cluster.settle(cluster.suggest(message)))
            XCTAssertEqual(content(answer), content(try cluster.wholeSuggest(message)), "\(request)")
            XCTAssertEqual(answer.shards?.succeeded, 3)
            if !answer.entries.isEmpty { answered += 1 }
        }
        XCTAssertGreaterThan(answered, 100, "most random keystrokes find entries")
        for request in Workload.searchRequests(from: Array(requests.prefix(30)), &rng) {
            let message = Typeahead_V1_SearchRequest(request)
            let bytes = try XCTUnwrap(cluster.settle(cluster.search(message))).get()
            var answer = try RPCMethod.decode(Typeahead_V1_SearchResponse.self, bytes[...])
            var whole = try cluster.wholeSearch(message)
            XCTAssertEqual(answer.shards?.succeeded, 3)
            answer.shards = nil
            whole.shards = nil
            XCTAssertEqual(answer, whole, "\(request)")
        }
        _ = catalog
    }

    /// Completions as presented: within a run of one best entry, its title's words first (which
    /// only presenting decides: the merge keeps the order shards merge by). Entries whose alias
    /// words sort before their title's, spread over three shards.
    func testCompletionsListTheBestEntrysTitleWordsFirst() throws {
        var entries = [CatalogEntry(id: "sp", title: "São Paulo", categories: ["Brazil"], weight: 12_000_000,
                                    aliases: ["Sao Palo", "Pauliceia", "Paulistana"])]
        for n in 0..<60 {
            entries.append(CatalogEntry(id: "e\(n)", title: "Sao Pau\(n % 7)\(n) Pedra", categories: ["Brazil"], weight: UInt64(1000 + n),
                                        aliases: n % 3 == 0 ? ["Paaa\(n)"] : []))
        }
        let cluster = try InProcessCluster(entries: entries, shards: 3, replicas: 1, settings: settings())
        for text in ["sao pa", "sao pau", "pa", "sao p", "pau"] {
            let message = Typeahead_V1_SuggestRequest(text: text)
            let answer = try decodeSuggest(cluster.settle(cluster.suggest(message)))
            XCTAssertEqual(content(answer), content(try cluster.wholeSuggest(message)), text)
        }
        let answer = try decodeSuggest(cluster.settle(cluster.suggest(Typeahead_V1_SuggestRequest(text: "sao pa"))))
        XCTAssertEqual(answer.completions.prefix(3).map(\.text), ["sao Paulo", "sao Pauliceia", "sao Paulistana"])
    }

    // MARK: Replicas

    /// A slow replica of shard 0: the hedge goes to the other replica after the hedging delay, its
    /// answer wins, the slow call is reset at its node, and the answer is the whole catalog's.
    func testAHedgeThatAnswersFirstWins() throws {
        let cluster = try InProcessCluster(entries: entries().entries, shards: 2, replicas: 2, settings: settings(hedgeDelay: .milliseconds(5)))
        cluster.onLoop { parts in for replica in parts.replicas[0] { replica.behaviour = { .answer(after: .milliseconds(50)) } } }
        let pending = cluster.suggest(message)
        // The first attempt went to one replica of shard 0; make the other quick.
        cluster.onLoop { parts in
            let idle = parts.replicas[0].first { $0.calls == 0 }!
            idle.behaviour = { .answer(after: .milliseconds(1)) }
        }
        cluster.advance(by: .milliseconds(4))
        XCTAssertNil(pending.result, "shard 0 has not answered before the hedge")
        cluster.advance(by: .milliseconds(1))   // the hedging delay: the hedge leaves
        XCTAssertEqual(cluster.onLoop { $0.replicas[0].map(\.calls) }, [1, 1])
        XCTAssertNil(pending.result)
        cluster.advance(by: .milliseconds(1))   // the hedge answers
        let answer = try decodeSuggest(pending.result)
        XCTAssertFalse(answer.entries.isEmpty)
        XCTAssertEqual(content(answer), content(try cluster.wholeSuggest(message)))
        XCTAssertEqual(answer.shards?.failed, 0)
        XCTAssertEqual(cluster.onLoop { $0.replicas[0].map(\.cancellations).reduce(0, +) }, 1, "the slow attempt is reset")
        XCTAssertEqual(cluster.core.telemetry.shards[0].hedgesSent.value, 1)
        XCTAssertEqual(cluster.core.telemetry.shards[0].hedgesWon.value, 1)
        XCTAssertEqual(cluster.onLoop { $0.clock.pending }, 0, "no timer left behind")
    }

    /// The first replica asked fails UNAVAILABLE: the other is asked at once (failover), the whole
    /// answer comes back, and the failed replica is marked down.
    func testAFailedReplicaFailsOverToTheOther() throws {
        let cluster = try InProcessCluster(entries: entries().entries, shards: 2, replicas: 2, settings: settings())
        cluster.onLoop { parts in
            for replica in parts.replicas[1] {
                replica.behaviour = { [unowned replica] in
                    replica.calls == 1 && parts.replicas[1].allSatisfy { $0 === replica || $0.calls == 0 }
                        ? .fail(GRPCStatus(.unavailable, "connection refused"), after: .milliseconds(2)) : .answer(after: .milliseconds(1))
                }
            }
        }
        let pending = cluster.suggest(message)
        cluster.advance(by: .milliseconds(2))
        XCTAssertNil(pending.result, "the failover is still out")
        XCTAssertEqual(cluster.onLoop { $0.replicas[1].map(\.calls) }.sorted(), [1, 1])
        cluster.advance(by: .milliseconds(1))
        let answer = try decodeSuggest(pending.result)
        XCTAssertEqual(content(answer), content(try cluster.wholeSuggest(message)))
        XCTAssertEqual(answer.shards?.failed, 0)
        XCTAssertEqual(cluster.core.telemetry.shards[1].failovers.value, 1)
        XCTAssertEqual(cluster.core.replicas.filter { $0.shard == 1 && !$0.health.up }.count, 1, "the failed replica is marked down")
    }

    /// A fault of the request itself (a replica answers INVALID_ARGUMENT) is not retried on
    /// another replica: every replica would say the same, so the call fails with it.
    func testTheRequestsOwnFaultIsNotRetried() throws {
        let cluster = try InProcessCluster(entries: entries().entries, shards: 2, replicas: 2, settings: settings())
        cluster.onLoop { parts in
            for replica in parts.replicas[0] {
                replica.behaviour = { .fail(GRPCStatus(.invalidArgument, "limits.entries must be between 0 and 100"), after: .milliseconds(1)) }
            }
        }
        let pending = cluster.suggest(message)
        cluster.advance(by: .milliseconds(1))
        guard case .failure(let status)? = pending.result else { return XCTFail("expected a failure, got \(String(describing: pending.result))") }
        XCTAssertEqual(status.code, .invalidArgument)
        XCTAssertEqual(cluster.onLoop { $0.replicas[0].map(\.calls).reduce(0, +) }, 1, "no failover")
        XCTAssertEqual(cluster.core.replicas.filter { !$0.health.up }.count, 0, "the request's fault says nothing of the replica")
    }

    // MARK: Keystrokes

    /// Revision 2 of a session supersedes revision 1 while its shard calls are out: revision 1 is
    /// answered CANCELLED and its calls are reset at the nodes; revision 2 answers; a revision 1
    /// arriving after it is refused.
    func testANewerRevisionSupersedesTheCallInFlight() throws {
        let cluster = try InProcessCluster(entries: entries().entries, shards: 2, replicas: 1, settings: settings())
        cluster.onLoop { parts in for replica in parts.replicas.flatMap({ $0 }) { replica.behaviour = { .answer(after: .milliseconds(10)) } } }
        var first = message
        first.session = "field-1"
        first.revision = 1
        var second = first
        second.text = "b"
        second.revision = 2
        let older = cluster.suggest(first)
        cluster.advance(by: .milliseconds(3))
        let newer = cluster.suggest(second)
        cluster.advance(by: .zero)   // the cancel queued by the supersession runs
        guard case .failure(let status)? = older.result else { return XCTFail("revision 1 should be cancelled, got \(String(describing: older.result))") }
        XCTAssertEqual(status.code, .cancelled)
        XCTAssertTrue(status.message.contains("superseded"), status.message)
        XCTAssertEqual(cluster.onLoop { $0.replicas.flatMap { $0 }.map(\.cancellations) }, [1, 1], "revision 1's shard calls are reset")
        cluster.advance(by: .milliseconds(10))
        let answer = try decodeSuggest(newer.result)
        XCTAssertEqual(answer.revision, 2)
        XCTAssertEqual(content(answer), content(try cluster.wholeSuggest(second)))
        let late = cluster.suggest(first)
        guard case .failure(let refused)? = late.result else { return XCTFail("a late revision 1 should be refused") }
        XCTAssertEqual(refused.code, .cancelled)
        XCTAssertEqual(cluster.core.telemetry.superseded.value, 2)
    }

    // MARK: Deadlines and partial answers

    /// Shard 1 never answers: at the deadline its calls are reset and the answer is shard 0's
    /// alone (exactly what a node over shard 0 says), with shard 1 named as missing.
    func testADeadlineLeavesOutTheShardThatDidNotAnswer() throws {
        let cluster = try InProcessCluster(entries: entries().entries, shards: 2, replicas: 2, settings: settings())
        cluster.onLoop { parts in for replica in parts.replicas[1] { replica.behaviour = { .silent } } }
        let pending = cluster.suggest(message, timeout: .milliseconds(100))
        cluster.advance(by: .milliseconds(50))
        XCTAssertNil(pending.result)
        cluster.advance(by: .milliseconds(50))
        let answer = try decodeSuggest(pending.result)
        XCTAssertEqual(answer.shards?.succeeded, 1)
        XCTAssertEqual(answer.shards?.failedShards, ["shard-1"])
        XCTAssertFalse(answer.entries.isEmpty)
        XCTAssertEqual(content(answer), content(try cluster.shardSuggest(0, message)))
        XCTAssertNotEqual(content(answer), content(try cluster.wholeSuggest(message)), "shard 1 holds some of the answer")
        // The silent call, and the hedge sent after it, are reset at the deadline.
        let (calls, cancellations) = cluster.onLoop { parts in
            (parts.replicas[1].map(\.calls).reduce(0, +), parts.replicas[1].map(\.cancellations).reduce(0, +))
        }
        XCTAssertGreaterThanOrEqual(calls, 1)
        XCTAssertEqual(cancellations, calls, "every call still out is reset")
        XCTAssertEqual(cluster.core.telemetry.shards[1].deadline.value, 1)

        // The same with every shard required: the call fails.
        var strict = message
        strict.requireAllShards = true
        let refused = cluster.suggest(strict, timeout: .milliseconds(100))
        cluster.advance(by: .milliseconds(100))
        guard case .failure(let status)? = refused.result else { return XCTFail("expected a failure, got \(String(describing: refused.result))") }
        XCTAssertEqual(status.code, .unavailable)
        XCTAssertTrue(status.message.contains("shard-1"), status.message)
    }

    /// Every replica of shard 0 fails: the answer is shard 1's alone, labelled partial.
    func testAShardWhoseReplicasAllFailIsLeftOut() throws {
        let cluster = try InProcessCluster(entries: entries().entries, shards: 2, replicas: 2, settings: settings())
        cluster.onLoop { parts in
            for replica in parts.replicas[0] { replica.behaviour = { .fail(GRPCStatus(.unavailable, "node stopped"), after: .milliseconds(1)) } }
        }
        let pending = cluster.suggest(message)
        cluster.advance(by: .milliseconds(1))
        XCTAssertNil(pending.result, "the failover is out")
        cluster.advance(by: .milliseconds(1))
        let answer = try decodeSuggest(pending.result)
        XCTAssertEqual(answer.shards?.failedShards, ["shard-0"])
        XCTAssertEqual(content(answer), content(try cluster.shardSuggest(1, message)))
        XCTAssertEqual(cluster.core.telemetry.partialSuggest.value, 1)
    }
}
