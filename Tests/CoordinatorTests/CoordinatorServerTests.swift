import Catalog
import Cluster
import Coordinator
import Foundation
import HTTP2
import Index
import RPC
import TestSupport
import Wire
import WireConversions
import XCTest

/// A coordinator in front of real nodes on loopback: exactness over the wire, partial answers,
/// failover, hedging, keystroke and client cancellation, deadlines and the generation switch.
final class CoordinatorServerTests: XCTestCase {
    static func catalog(_ count: Int = 400, seed: UInt64 = 0xC00D) -> (entries: [CatalogEntry], generator: RandomCatalog) {
        var rng = SeededGenerator(seed: seed)
        var generator = RandomCatalog(vocabularySize: 30, rng: &rng)
        return (generator.randomEntries(count, &rng), generator)
    }

    /// The client messages without `shards` (a node reports itself as one shard).
    static func withoutShards(_ response: Typeahead_V1_SuggestResponse) -> [UInt8] {
        var copy = response
        copy.shards = nil
        return copy.serializedBytes()
    }

    static func withoutShards(_ response: Typeahead_V1_SearchResponse) -> [UInt8] {
        var copy = response
        copy.shards = nil
        return copy.serializedBytes()
    }

    // MARK: Exactness over the network

    /// Keystroke workloads through gRPC: the coordinator over 3 shards × 2 replicas answers every
    /// suggest and every search page byte for byte like one node over the whole catalog.
    func testClusterAnswersEqualASingleNodeOverTheWire() async throws {
        let sample = SharedData.path("debian.jsonl.gz")
        let entries: [CatalogEntry]
        var categories: [String] = []
        var vocabulary: [String] = []
        if FileManager.default.fileExists(atPath: sample) {
            entries = try SharedData.sample(path: sample, count: 1500)
        } else {
            let random = Self.catalog()
            entries = random.entries
            vocabulary = random.generator.vocabulary
        }
        for entry in entries { for category in entry.categories where !categories.contains(category) { categories.append(category) } }
        let single = try SingleNode(entries: entries)
        let cluster = try TestCluster(entries: entries, shards: 3, replicas: 2)
        defer { single.shutdown(); cluster.shutdown() }
        let node = try await single.connect()
        var rng = SeededGenerator(seed: 0x5EED)
        let requests = Workload.suggestRequests(entries: entries, categories: categories, vocabulary: vocabulary, count: 400, &rng)
        var compared = 0
        for request in requests {
            let message = Typeahead_V1_SuggestRequest(request)
            let expected = try await GRPCClient.call(Typeahead_V1_TypeaheadService.suggest, message, on: node)
            let got = try await cluster.suggest(message)
            XCTAssertEqual(got.shards?.succeeded, 3, Render.request(request))
            XCTAssertEqual(got.shards?.generation, 1)
            XCTAssertEqual(Self.withoutShards(got), Self.withoutShards(expected), "suggest differs: \(Render.request(request))")
            compared += 1
        }
        for request in Workload.searchRequests(from: Array(requests.prefix(40)), pageSizes: 5...20, &rng) {
            var message = Typeahead_V1_SearchRequest(request)
            for page in 1...6 {
                let expected = try await GRPCClient.call(Typeahead_V1_TypeaheadService.search, message, on: node)
                let got = try await cluster.search(message)
                XCTAssertEqual(Self.withoutShards(got), Self.withoutShards(expected), "search page \(page) differs: \(Render.request(request))")
                compared += 1
                guard !expected.nextPageToken.isEmpty else { break }
                message.pageToken = expected.nextPageToken
            }
        }
        print("over the wire: \(compared) answers compared")
    }

    // MARK: Failures

    /// A shard without a replica: the answer says which shard is missing and carries the rest;
    /// `require_all_shards` turns it into UNAVAILABLE; the shard comes back by itself.
    func testPartialAnswersAndRecovery() async throws {
        let (entries, _) = Self.catalog()
        let cluster = try TestCluster(entries: entries, shards: 2, replicas: 1)
        defer { cluster.shutdown() }
        let request = Typeahead_V1_SuggestRequest(text: "a", limits: .init(entries: 100))
        let full = try await cluster.suggest(request)
        XCTAssertEqual(full.shards?.succeeded, 2)

        cluster.stopNode(shard: 1, replica: 0)
        try await cluster.eventually("shard-1 reported missing") {
            (try? await cluster.suggest(request))?.shards?.failedShards == ["shard-1"]
        }
        let partial = try await cluster.suggest(request)
        XCTAssertEqual(partial.shards?.total, 2)
        XCTAssertEqual(partial.shards?.succeeded, 1)
        XCTAssertEqual(partial.shards?.failed, 1)
        let survivors = Set(entries.filter { ShardAssignment.shard(of: $0.id, shardCount: 2) == 0 }.map(\.id))
        XCTAssertTrue(partial.entries.allSatisfy { survivors.contains($0.id) }, "a partial answer holds shard-0's entries only")
        XCTAssertFalse(partial.entries.isEmpty)
        var strict = request
        strict.requireAllShards = true
        do {
            _ = try await cluster.suggest(strict)
            XCTFail("require_all_shards must fail while shard-1 is down")
        } catch let status as GRPCStatus {
            XCTAssertEqual(status.code, .unavailable)
            XCTAssertTrue(status.message.contains("shard-1"), status.message)
        }
        let searched = try await cluster.search(Typeahead_V1_SearchRequest(text: "a", pageSize: 5))
        XCTAssertEqual(searched.shards?.failedShards, ["shard-1"])
        let partials = try await cluster.metric(#"typeahead_coordinator_partial_answers_total{method="Suggest"}"#)
        XCTAssertGreaterThan(partials, 0)

        try cluster.startNode(shard: 1, replica: 0)
        try await cluster.eventually("shard-1 back") { (try? await cluster.suggest(strict))?.shards?.succeeded == 2 }
        let recovered = try await cluster.suggest(request)
        XCTAssertEqual(Self.withoutShards(recovered), Self.withoutShards(full))
    }

    /// A replica that goes away while calls keep coming: every call is answered (by the other one).
    func testFailoverLosesNoCall() async throws {
        let (entries, generator) = Self.catalog()
        let cluster = try TestCluster(entries: entries, shards: 1, replicas: 2)
        defer { cluster.shutdown() }
        var rng = SeededGenerator(seed: 7)
        let requests = Workload.suggestRequests(entries: entries, categories: generator.categories, vocabulary: generator.vocabulary,
                                                count: 300, &rng)
        for (index, request) in requests.enumerated() {
            if index == 100 { cluster.stopNode(shard: 0, replica: 0) }
            if index == 200 {
                try cluster.startNode(shard: 0, replica: 0)
                try await cluster.eventually("replica 0 back") {
                    (try await cluster.status(refresh: true)).shards[0].replicas.allSatisfy(\.up)
                }
                cluster.stopNode(shard: 0, replica: 1)
            }
            let answer = try await cluster.suggest(Typeahead_V1_SuggestRequest(request))
            XCTAssertEqual(answer.shards?.succeeded, 1, "call \(index)")
        }
        // Calls went to the live replica, so the stopped one may not have failed one yet: its health
        // check marks it down, a moment later on a loaded machine.
        try await cluster.eventually("replica 1 marked down") {
            (try await cluster.status(refresh: true)).shards.first?.replicas.map(\.up) == [true, false]
        }
    }

    /// One replica behind a 200 ms delay: hedged calls go to the other and win, and replica choice
    /// moves the traffic away from the slow one.
    func testHedgingAroundASlowReplica() async throws {
        let (entries, _) = Self.catalog()
        var settings = Self.patientSettings()
        settings.hedgeFloor = .milliseconds(5)
        settings.hedgeBudget = 0.5
        let cluster = try TestCluster(entries: entries, shards: 1, replicas: 2, settings: settings,
                                      delays: [(shard: 0, replica: 0, milliseconds: 200)])
        defer { cluster.shutdown() }
        try await cluster.eventually("both replicas up") { try await cluster.status(refresh: true).shards[0].replicas.allSatisfy(\.up) }
        var slowAnswers = 0
        for index in 0..<60 {
            let started = ContinuousClock.now
            _ = try await cluster.suggest(Typeahead_V1_SuggestRequest(text: ["a", "ap", "app", "b", "ba"][index % 5]))
            if ContinuousClock.now - started > .milliseconds(150) { slowAnswers += 1 }
        }
        let won = try await cluster.metric(#"typeahead_coordinator_hedges_total{shard="shard-0",result="won"}"#)
        let sent = try await cluster.metric(#"typeahead_coordinator_hedges_total{shard="shard-0",result="sent"}"#)
        let cancelled = try await cluster.metric(#"typeahead_coordinator_shard_requests_cancelled_total{reason="hedge"}"#)
        print("hedging: \(Int(sent)) sent, \(Int(won)) won, \(Int(cancelled)) losers reset, \(slowAnswers) of 60 calls slower than 150 ms")
        XCTAssertGreaterThan(sent, 0, "no hedge was sent")
        XCTAssertGreaterThan(won, 0, "no hedge won")
        XCTAssertGreaterThan(cancelled, 0, "losing attempts are reset")
        XCTAssertLessThan(slowAnswers, 30, "the slow replica answered most calls: neither hedging nor replica choice helped")
    }

    /// Both replicas stall a fifth of their answers by 100 ms (the node's fault injection): hedged
    /// calls to the other replica answer most of those in time.
    func testHedgingAroundStalls() async throws {
        let (entries, _) = Self.catalog()
        var settings = TestCluster.settings()
        settings.hedgeDelay = .milliseconds(10)
        settings.hedgeBudget = 0.5
        let cluster = try TestCluster(entries: entries, shards: 1, replicas: 2, settings: settings,
                                      stall: (share: 0.2, duration: .milliseconds(100)))
        defer { cluster.shutdown() }
        var slow = 0
        let calls = 100
        for index in 0..<calls {
            let started = ContinuousClock.now
            _ = try await cluster.suggest(Typeahead_V1_SuggestRequest(text: ["a", "ap", "b", "ba", "c"][index % 5]))
            if ContinuousClock.now - started >= .milliseconds(95) { slow += 1 }
        }
        let sent = try await cluster.metric(#"typeahead_coordinator_hedges_total{shard="shard-0",result="sent"}"#)
        let won = try await cluster.metric(#"typeahead_coordinator_hedges_total{shard="shard-0",result="won"}"#)
        print("stalls: \(Int(sent)) hedges sent, \(Int(won)) won, \(slow) of \(calls) calls waited for a stall (about \(calls / 5) would without hedging)")
        XCTAssertGreaterThan(won, 0)
        // Without hedging about 20 calls wait 100 ms; with it only calls whose hedge stalls too (~4%).
        XCTAssertLessThan(slow, 14, "hedging did not route around the stalls")
    }

    // MARK: Cancellation and deadlines

    /// Health checks patient enough for replicas behind a delay relay (it delays both directions).
    static func patientSettings() -> ClusterFile.Settings {
        var settings = TestCluster.settings()
        settings.healthTimeout = .seconds(5)
        return settings
    }

    /// A newer keystroke of a session cancels the older one down to the shards; an older one that
    /// arrives late is refused.
    func testNewerKeystrokeCancelsTheOlder() async throws {
        let (entries, _) = Self.catalog()
        let cluster = try TestCluster(entries: entries, shards: 2, replicas: 1, settings: Self.patientSettings(),
                                      delays: [(shard: 0, replica: 0, milliseconds: 400), (shard: 1, replica: 0, milliseconds: 400)])
        defer { cluster.shutdown() }
        let first = Task { try await cluster.suggest(Typeahead_V1_SuggestRequest(text: "ap", session: "field-1", revision: 1)) }
        try await cluster.eventually("the first keystroke in flight") {
            try await cluster.metric(#"typeahead_requests_in_flight{method="/typeahead.v1.Typeahead/Suggest"}"#) >= 1
        }
        let second = try await cluster.suggest(Typeahead_V1_SuggestRequest(text: "app", session: "field-1", revision: 2))
        XCTAssertEqual(second.revision, 2)
        XCTAssertEqual(second.session, "field-1")
        do {
            _ = try await first.value
            XCTFail("the superseded keystroke must be cancelled")
        } catch let status as GRPCStatus {
            XCTAssertEqual(status.code, .cancelled)
            XCTAssertTrue(status.message.contains("superseded"), status.message)
        }
        do {
            _ = try await cluster.suggest(Typeahead_V1_SuggestRequest(text: "a", session: "field-1", revision: 1))
            XCTFail("a late, older keystroke must be refused")
        } catch let status as GRPCStatus {
            XCTAssertEqual(status.code, .cancelled)
        }
        let reset = try await cluster.metric(#"typeahead_coordinator_shard_requests_cancelled_total{reason="superseded"}"#)
        XCTAssertEqual(reset, 2, "both shard calls of the superseded keystroke are reset")
        let superseded = try await cluster.metric("typeahead_coordinator_superseded_calls_total")
        XCTAssertEqual(superseded, 2)
        // The session table as an operator sees it: nothing in flight, one session remembered.
        try await cluster.eventually("the first keystroke ended") {
            try await cluster.metric("typeahead_coordinator_sessions_in_flight") == 0
        }
        let finished = try await cluster.metric("typeahead_coordinator_sessions_finished")
        XCTAssertEqual(finished, 1)
    }

    /// A client that resets its stream: the shard calls are reset too.
    func testClientCancellationResetsShardCalls() async throws {
        let (entries, _) = Self.catalog()
        let cluster = try TestCluster(entries: entries, shards: 2, replicas: 1, settings: Self.patientSettings(),
                                      delays: [(shard: 0, replica: 0, milliseconds: 400), (shard: 1, replica: 0, milliseconds: 400)])
        defer { cluster.shutdown() }
        let call = Task { try await cluster.suggest(Typeahead_V1_SuggestRequest(text: "ap")) }
        try await cluster.eventually("the call in flight") {
            try await cluster.metric(#"typeahead_requests_in_flight{method="/typeahead.v1.Typeahead/Suggest"}"#) >= 1
        }
        call.cancel()
        _ = try? await call.value
        try await cluster.eventually("shard calls reset") {
            try await cluster.metric(#"typeahead_coordinator_shard_requests_cancelled_total{reason="client"}"#) == 2
        }
    }

    /// The client's deadline bounds the shard calls: a shard slower than it is left out (partial),
    /// and when every shard is, the call fails with DEADLINE_EXCEEDED.
    func testDeadlineLeavesOutSlowShards() async throws {
        let (entries, _) = Self.catalog()
        let cluster = try TestCluster(entries: entries, shards: 2, replicas: 1, settings: Self.patientSettings(),
                                      delays: [(shard: 1, replica: 0, milliseconds: 1000)])
        defer { cluster.shutdown() }
        let started = ContinuousClock.now
        let answer = try await cluster.suggest(Typeahead_V1_SuggestRequest(text: "a"), timeout: .milliseconds(300))
        XCTAssertLessThan(ContinuousClock.now - started, .milliseconds(1900), "the coordinator waited for the slow shard")
        XCTAssertEqual(answer.shards?.failedShards, ["shard-1"])
        let missed = try await cluster.metric(#"typeahead_coordinator_shard_requests_total{shard="shard-1",outcome="deadline"}"#)
        XCTAssertEqual(missed, 1)
        let reset = try await cluster.metric(#"typeahead_coordinator_shard_requests_cancelled_total{reason="deadline"}"#)
        XCTAssertEqual(reset, 1)
    }

    // MARK: Generations

    /// Generation 2 is staged everywhere, then activated replica by replica under load: every
    /// answer comes wholly from generation 1 or wholly from 2, and once the first replica
    /// switched, the coordinator serves 2 on every shard.
    func testGenerationSwitchNeverMixes() async throws {
        let (entries, _) = Self.catalog(300)
        let cluster = try TestCluster(entries: entries, shards: 2, replicas: 2)
        defer { cluster.shutdown() }
        // Generation 2: every title gets a marker word, so an answer shows which generation it read.
        let renamed = entries.map { entry -> CatalogEntry in
            var copy = entry
            copy.title = "zzv2 " + entry.title
            return copy
        }
        for shard in 0..<2 {
            let part = renamed.filter { ShardAssignment.shard(of: $0.id, shardCount: 2) == shard }
            for replica in 0..<2 { _ = try cluster.shards[shard][replica].buildGeneration(from: part, number: 2) }
        }
        let request = Typeahead_V1_SuggestRequest(text: "", limits: .init(entries: 100))
        let load = Task { () -> [UInt64: Int] in
            var seen: [UInt64: Int] = [:]
            while !Task.isCancelled {
                guard let answer = try? await cluster.suggest(request) else { continue }
                let generation = answer.shards?.generation ?? 0
                let marked = answer.entries.filter { $0.title.hasPrefix("zzv2 ") }.count
                XCTAssertTrue(marked == 0 || marked == answer.entries.count, "an answer mixes generations")
                XCTAssertEqual(marked == answer.entries.count && marked > 0, generation == 2, "the answer's generation label is wrong")
                seen[generation, default: 0] += 1
            }
            return seen
        }
        try await Task.sleep(for: .milliseconds(300))
        XCTAssertEqual(cluster.coordinator.servingGeneration, 1, "a staged generation is not served")
        try cluster.shards[0][0].activate(generation: 2)
        try await cluster.eventually("the coordinator switched") { cluster.coordinator.servingGeneration == 2 }
        for (shard, replica) in [(0, 1), (1, 0), (1, 1)] { try cluster.shards[shard][replica].activate(generation: 2) }
        try await Task.sleep(for: .milliseconds(300))
        load.cancel()
        let seen = await load.value
        print("answers by generation: \(seen)")
        XCTAssertGreaterThan(seen[1] ?? 0, 0)
        XCTAssertGreaterThan(seen[2] ?? 0, 0)
        let after = try await cluster.suggest(request)
        XCTAssertEqual(after.shards?.generation, 2)
        // Rollback is atomic the same way: generation 1 returns once no replica serves 2.
        for shard in 0..<2 { for replica in 0..<2 { try cluster.shards[shard][replica].rollback() } }
        try await cluster.eventually("rolled back") { cluster.coordinator.servingGeneration == 1 }
    }

    /// The Cluster service: shards, replicas, generations; it needs the admin token.
    func testClusterStatus() async throws {
        let (entries, _) = Self.catalog(100)
        let cluster = try TestCluster(entries: entries, shards: 2, replicas: 2)
        defer { cluster.shutdown() }
        _ = try await cluster.suggest(Typeahead_V1_SuggestRequest(text: "a"))
        let status = try await cluster.status(refresh: true)
        XCTAssertEqual(status.servingGeneration, 1)
        XCTAssertTrue(status.ready)
        XCTAssertEqual(status.shards.map(\.name), ["shard-0", "shard-1"])
        XCTAssertEqual(status.shards.flatMap(\.replicas).map(\.up), [true, true, true, true])
        XCTAssertEqual(status.shards.map { $0.replicas[0].entries }.reduce(0, +), 100)
        do {
            _ = try await GRPCClient.call(Typeahead_V1_ClusterService.status, Typeahead_V1_ClusterStatusRequest(), on: try await cluster.connect())
            XCTFail("status needs the admin token")
        } catch let status as GRPCStatus {
            XCTAssertEqual(status.code, .unauthenticated)
        }
    }
}
