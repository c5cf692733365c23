import Catalog
import Cluster
import Foundation
import HTTP2
import Launcher
import Load
import RPC
import Synchronization
import TestSupport
import Wire
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// `typeahead admin` against a real local cluster (`typeahead local`'s processes): a reindex under
/// a client that never stops querying, an interrupted reindex resumed, updates, errors.
final class AdminTests: XCTestCase {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let sampleCatalog = packageRoot.appendingPathComponent("deploy/catalog/sample.jsonl").path

    static var binary: String { BuiltProducts.typeahead.path }

    var directory: TemporaryDirectory!
    var cluster: LocalCluster?

    override func setUpWithError() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binary) else { throw XCTSkip("typeahead binary not built next to the tests") }
        directory = TemporaryDirectory("typeahead-admin")
    }

    override func tearDown() {
        cluster?.stop()
        cluster = nil
    }

    func startCluster(catalog: String = AdminTests.sampleCatalog, shards: Int = 2, replicas: Int = 2) async throws -> LocalCluster.Summary {
        var options = LocalCluster.Options(catalog: catalog, executable: Self.binary)
        options.shards = shards
        options.replicas = replicas
        options.listen = Endpoint(host: "127.0.0.1", port: 0)
        options.dataDirectory = directory.path + "/cluster"
        let cluster = LocalCluster(options: options)
        self.cluster = cluster
        return try await cluster.start()
    }

    /// Runs `typeahead admin --cluster … ARGS`, returning (status, stdout+stderr).
    func admin(_ summary: LocalCluster.Summary, _ arguments: [String], token: String? = nil) throws -> (Int32, String) {
        var prefix = ["admin", "--cluster", summary.clusterFile]
        if let token {
            let file = directory.path + "/other.token"
            try Data(token.utf8).write(to: URL(fileURLWithPath: file))
            prefix += ["--token-file", file]
        }
        return try run(prefix + arguments)
    }

    func run(_ arguments: [String]) throws -> (Int32, String) {
        let (process, output) = try spawn(arguments)
        process.waitUntilExit()
        return (process.terminationStatus, (try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
    }

    /// Starts `typeahead ARGS` with its output in a file (never a pipe: nothing blocks on it).
    func spawn(_ arguments: [String]) throws -> (Process, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = arguments
        let output = directory.path + "/run-\(UUID().uuidString).out"
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        process.standardOutput = handle
        process.standardError = handle
        process.terminationHandler = { _ in try? handle.close() }
        try process.run()
        return (process, output)
    }

    /// The sample catalog with every title prefixed: an answer shows which catalog it came from.
    func renamedCatalog(_ prefix: String, from source: String = AdminTests.sampleCatalog) throws -> String {
        let path = directory.path + "/\(prefix)-catalog.jsonl"
        let lines = try String(contentsOfFile: source, encoding: .utf8).split(separator: "\n")
        var out = ""
        for line in lines {
            var object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            object["title"] = "\(prefix) " + (object["title"] as? String ?? "")
            out += String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self) + "\n"
        }
        try Data(out.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Queries the coordinator without pause until stopped, recording what each answer read.
    final class Prober: Sendable {
        struct Answer: Sendable {
            var sent: ContinuousClock.Instant
            var received: ContinuousClock.Instant
            var generation: UInt64
            /// "old", "new" or "mixed", by the titles' prefix.
            var catalog: String
        }
        let answers = Mutex<[Answer]>([])
        let failures = Mutex<[String]>([])
        let stop = Atomic<Bool>(false)

        func run(_ endpoint: Endpoint, newPrefix: String, concurrency: Int = 4) async throws {
            let client = try HTTP2Client()
            defer { client.shutdown() }
            let connection = try await client.connect(host: endpoint.host, port: endpoint.port)
            await withTaskGroup(of: Void.self) { group in
                for worker in 0..<concurrency {
                    group.addTask { [self] in
                        var index = 0
                        while !stop.load(ordering: .relaxed) {
                            index += 1
                            let text = ["", "r", "red", "a", "new", "\(newPrefix.lowercased()) r"][(index + worker) % 6]
                            let sent = ContinuousClock.now
                            do {
                                let answer = try await GRPCClient.call(Typeahead_V1_TypeaheadService.suggest,
                                                                       Typeahead_V1_SuggestRequest(text: text, limits: .init(entries: 20)),
                                                                       on: connection, options: .init(timeout: .seconds(5)))
                                let fresh = answer.entries.filter { $0.title.hasPrefix(newPrefix + " ") }.count
                                let catalog = fresh == 0 ? "old" : fresh == answer.entries.count ? "new" : "mixed"
                                if answer.shards?.failed ?? 0 > 0 { failures.withLock { $0.append("partial answer: \(answer.shards!)") } }
                                answers.withLock { $0.append(Answer(sent: sent, received: .now, generation: answer.shards?.generation ?? 0,
                                                                    catalog: answer.entries.isEmpty ? "empty" : catalog)) }
                            } catch {
                                failures.withLock { $0.append("\(text): \(error)") }
                            }
                        }
                    }
                }
            }
        }
    }

    // MARK: The zero-downtime reindex

    /// A client queries without pause while the cluster is reindexed: no call fails, no answer
    /// mixes catalogs, everything before the reindex reads the old catalog and everything sent after
    /// it returned reads the new one.
    func testReindexWithoutDowntime() async throws {
        let summary = try await startCluster()
        let newCatalog = try renamedCatalog("Zq")
        let prober = Prober()
        let probing = Task { try await prober.run(summary.coordinator, newPrefix: "Zq") }
        // And people typing, as `typeahead load` replays them, until after the reindex (stopped
        // by SIGINT, which still writes the report).
        let reportDirectory = directory.path + "/load-report"
        let (load, loadOutput) = try spawn(["load", "--target", "\(summary.coordinator.host):\(summary.coordinator.port)",
                                            "--catalog", Self.sampleCatalog, "--rate", "20", "--duration", "300",
                                            "--graceful-stop", "2", "--connections", "2", "--seed", "5",
                                            "--report", reportDirectory, "--quiet"])
        try await Task.sleep(for: .milliseconds(500))
        let started = ContinuousClock.now
        let (status, output) = try admin(summary, ["reindex", "--catalog", newCatalog, "--progress", "plain"])
        let finished = ContinuousClock.now
        XCTAssertEqual(status, 0, output)
        XCTAssertTrue(output.contains("into generation 2"), output)
        try await Task.sleep(for: .milliseconds(500))
        prober.stop.store(true, ordering: .relaxed)
        try await probing.value
        kill(load.processIdentifier, SIGINT)
        load.waitUntilExit()
        let loadLog = (try? String(contentsOfFile: loadOutput, encoding: .utf8)) ?? ""
        XCTAssertEqual(load.terminationStatus, 0, loadLog)
        let report = try JSONDecoder().decode(LoadReport.self,
                                              from: Data(contentsOf: URL(fileURLWithPath: reportDirectory + "/report.json")))
        print("typeahead load during the reindex: \(report.requests.sent) sent, \(report.requests.answered) answered, "
              + "\(report.requests.failed) failed, \(report.requests.partial) partial, generations \(report.shards.generations)")
        XCTAssertEqual(report.requests.failed, 0, "requests failed during the reindex: \(report.requests.byStatus)\n\(loadLog)")
        XCTAssertEqual(report.requests.partial, 0, "partial answers during the reindex: \(report.shards.failedShards)")
        XCTAssertGreaterThan(report.requests.answered, 20, loadLog)
        XCTAssertEqual(Set(report.shards.generations.keys), ["1", "2"], "the load saw both generations, one after the other")
        let answers = prober.answers.withLock { $0 }
        let failures = prober.failures.withLock { $0 }
        print("reindex under load: \(answers.count) answers, \(failures.count) failures, reindex took \(finished - started)")
        XCTAssertEqual(failures, [], "calls failed during the reindex")
        XCTAssertGreaterThan(answers.count, 100)
        for answer in answers where answer.catalog != "empty" {
            XCTAssertNotEqual(answer.catalog, "mixed", "an answer mixed both catalogs")
            XCTAssertEqual(answer.catalog == "new", answer.generation == 2, "generation \(answer.generation) answered with the \(answer.catalog) catalog")
        }
        XCTAssertTrue(answers.filter { $0.received < started }.allSatisfy { $0.generation == 1 }, "an answer before the reindex read generation 2")
        XCTAssertTrue(answers.filter { $0.sent > finished }.allSatisfy { $0.generation == 2 }, "an answer after the reindex read generation 1")
        XCTAssertGreaterThan(answers.filter { $0.sent > finished }.count, 0)

        // Rerunning the same reindex finds it done; rollback returns to generation 1 everywhere.
        let (again, rerun) = try admin(summary, ["reindex", "--catalog", newCatalog, "--progress", "none"])
        XCTAssertEqual(again, 0, rerun)
        XCTAssertTrue(rerun.contains("already serving"), rerun)
        let (rolled, rollback) = try admin(summary, ["rollback"])
        XCTAssertEqual(rolled, 0, rollback)
        XCTAssertTrue(rollback.contains("generation 1 serves"), rollback)
        // Forward again to a named generation, twice (idempotent), and a number nobody holds.
        for _ in 0..<2 {
            let (forward, forwardOutput) = try admin(summary, ["rollback", "--to", "2"])
            XCTAssertEqual(forward, 0, forwardOutput)
            XCTAssertTrue(forwardOutput.contains("generation 2 is current on every replica"), forwardOutput)
        }
        let (missing, missingOutput) = try admin(summary, ["rollback", "--to", "9"])
        XCTAssertEqual(missing, 1, missingOutput)
        XCTAssertTrue(missingOutput.contains("generation 9 is not current everywhere"), missingOutput)
    }

    /// A node is SIGKILLed in the middle of the upload and the admin is interrupted too: the cluster
    /// serves the old generation throughout, and rerunning the command continues and completes.
    func testInterruptedReindexResumesAndCompletes() async throws {
        // Large enough that the upload takes a while.
        let big = directory.path + "/big.jsonl"
        var text = ""
        for entry in SyntheticCatalog(seed: 5, count: 60_000) { text += entry.jsonLine() + "\n" }
        try Data(text.utf8).write(to: URL(fileURLWithPath: big))
        let summary = try await startCluster(catalog: Self.sampleCatalog)
        let prober = Prober()
        let probing = Task { try await prober.run(summary.coordinator, newPrefix: "Zz", concurrency: 2) }

        let (reindex, log) = try spawn(["admin", "--cluster", summary.clusterFile, "reindex", "--catalog", big, "--progress", "plain"])
        // Wait until the upload is under way on a replica of shard 0, then kill that node.
        let stats = summary.nodes[0][0]
        let client = try HTTP2Client()
        defer { client.shutdown() }
        let node = try await client.connect(host: stats.host, port: stats.port)
        let end = ContinuousClock.now + .seconds(120)
        var uploaded: UInt64 = 0
        while ContinuousClock.now < end, uploaded < 3 {
            uploaded = (try? await GRPCClient.call(Typeahead_V1_ShardService.stats, Typeahead_V1_StatsRequest(), on: node))?.upload?.batches ?? 0
            try await Task.sleep(for: .milliseconds(20))
        }
        XCTAssertGreaterThanOrEqual(uploaded, 3, "the upload never started:\n\((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        cluster!.nodes(of: 0)[0].signal(SIGKILL)
        kill(reindex.processIdentifier, SIGINT)
        reindex.waitUntilExit()
        let first = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        XCTAssertEqual(reindex.terminationStatus, 130, first)
        XCTAssertTrue(first.contains("run the same command again"), first)

        // Meanwhile generation 1 serves; the killed node comes back (the supervisor restarts it).
        // Writes made while the uploads wait are carried into the new generation: an upsert of a
        // new entry and the delete of one the new catalog holds (retried until the restarted
        // node takes them too; both are safe to repeat).
        let bigFirstID = try XCTUnwrap(SyntheticCatalog(seed: 5, count: 60_000).first?.id)
        let during = directory.path + "/during.jsonl"
        try Data((CatalogEntry(id: "zz-during", title: "Zebra written during the reindex").jsonLine() + "\n").utf8)
            .write(to: URL(fileURLWithPath: during))
        var wrote = false
        let writeEnd = ContinuousClock.now + .seconds(60)
        while !wrote, ContinuousClock.now < writeEnd {
            let (upserted, _) = try admin(summary, ["upsert", during])
            let (deleted, _) = upserted == 0 ? try admin(summary, ["delete", bigFirstID]) : (1, "")
            wrote = upserted == 0 && deleted == 0
            if !wrote { try await Task.sleep(for: .milliseconds(200)) }
        }
        XCTAssertTrue(wrote, "the writes never reached every replica")
        let (status, output) = try admin(summary, ["reindex", "--catalog", big, "--progress", "plain"])
        XCTAssertEqual(status, 0, output)
        XCTAssertTrue(output.contains("continuing generation 2"), output)
        XCTAssertTrue(output.contains("reindexed 60000 entries into generation 2"), output)
        prober.stop.store(true, ordering: .relaxed)
        try await probing.value
        let answers = prober.answers.withLock { $0 }
        let failures = prober.failures.withLock { $0 }
        print("interrupted reindex: \(answers.count) answers, \(failures.count) failures, node restarts \(cluster!.nodes(of: 0)[0].restarts)")
        XCTAssertEqual(failures, [], "calls failed while a node was killed and the reindex resumed")
        XCTAssertEqual(Set(answers.map(\.generation)).subtracting([1, 2]), [])
        let (_, report) = try admin(summary, ["status", "--json"])
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(report.utf8)) as? [String: Any], report)
        let replicas = try XCTUnwrap(json["replicas"] as? [[String: Any]])
        XCTAssertEqual(replicas.map { $0["currentGeneration"] as? Int }, [2, 2, 2, 2], report)
        XCTAssertEqual(replicas.compactMap { $0["entries"] as? Int }.reduce(0, +), 2 * 60_000, "one added, one deleted, on both replicas")
        let coordinator = try await client.connect(host: summary.coordinator.host, port: summary.coordinator.port)
        let answer = try await GRPCClient.call(Typeahead_V1_TypeaheadService.suggest, Typeahead_V1_SuggestRequest(text: "zebra written"),
                                               on: coordinator)
        XCTAssertEqual(answer.entries.map(\.id), ["zz-during"], "the upsert made during the reindex is in generation 2")
        XCTAssertEqual(answer.shards?.generation, 2)
    }

    // MARK: Updates and errors

    func testUpsertAndDeleteReachTheirShard() async throws {
        let summary = try await startCluster()
        let changes = directory.path + "/changes.jsonl"
        try Data("""
        {"id":"new-1","title":"Quokka Lamp","categories":["Home"],"weight":99999999}
        {"id":"sku-00380","title":"Quokka Shirt","categories":["Clothing"],"weight":"5","description":""}

        """.utf8).write(to: URL(fileURLWithPath: changes))
        let (status, output) = try admin(summary, ["upsert", changes])
        XCTAssertEqual(status, 0, output)
        XCTAssertTrue(output.contains("1 inserted, 1 replaced"), output)
        // Values read as meant are said, as typeahead index says them.
        XCTAssertTrue(output.contains(#"typeahead admin upsert: warning: 1 line has "weight" as a string (read as the number): line 2"#), output)
        XCTAssertTrue(output.contains(#"warning: 1 line has "description": "" (read as no description): line 2"#), output)
        let client = try HTTP2Client()
        defer { client.shutdown() }
        let connection = try await client.connect(host: summary.coordinator.host, port: summary.coordinator.port)
        let found = try await GRPCClient.call(Typeahead_V1_TypeaheadService.suggest, Typeahead_V1_SuggestRequest(text: "quokka"), on: connection)
        XCTAssertEqual(Set(found.entries.map(\.id)), ["new-1", "sku-00380"])
        let (deleted, deleteOutput) = try admin(summary, ["delete", "new-1", "no-such-id"])
        XCTAssertEqual(deleted, 0, deleteOutput)
        XCTAssertTrue(deleteOutput.contains("1 deleted, 1 not found"), deleteOutput)
        let after = try await GRPCClient.call(Typeahead_V1_TypeaheadService.suggest, Typeahead_V1_SuggestRequest(text: "quokka"), on: connection)
        XCTAssertEqual(after.entries.map(\.id), ["sku-00380"])
    }

    func testErrorsSayWhatToDo() async throws {
        let summary = try await startCluster(shards: 1, replicas: 1)
        let (badToken, tokenOutput) = try admin(summary, ["status"], token: "wrong-token-0123456789")
        XCTAssertEqual(badToken, 1, tokenOutput)
        XCTAssertTrue(tokenOutput.contains("--token-file"), tokenOutput)

        let broken = directory.path + "/broken.jsonl"
        try Data("{\"id\":\"a\",\"title\":\"fine\"}\n{\"id\":\"b\"}\nnot json\n".utf8).write(to: URL(fileURLWithPath: broken))
        let (bad, badOutput) = try admin(summary, ["reindex", "--catalog", broken, "--progress", "none"])
        XCTAssertEqual(bad, 1, badOutput)
        XCTAssertTrue(badOutput.contains("line 2") && badOutput.contains("line 3"), badOutput)
        XCTAssertTrue(badOutput.contains("nothing was sent"), badOutput)
        let (_, status) = try admin(summary, ["status", "--json"])
        XCTAssertTrue(status.contains("\"upload\":null"), "nothing was uploaded: \(status)")

        let unreachable = directory.path + "/unreachable.json"
        try Data(#"{"shards":[{"name":"shard-0","replicas":["127.0.0.1:1"]}]}"#.utf8).write(to: URL(fileURLWithPath: unreachable))
        let (down, downOutput) = try run(["admin", "--cluster", unreachable, "--token-file", summary.tokenFile, "reindex",
                                          "--catalog", Self.sampleCatalog, "--patience", "1", "--progress", "none"])
        XCTAssertEqual(down, 1, downOutput)
        XCTAssertTrue(downOutput.contains("cannot reach replica 127.0.0.1:1"), downOutput)
        let (usage, usageOutput) = try run(["admin", "status"])
        XCTAssertEqual(usage, 2, usageOutput)

        // A generation nobody holds is a mistake, not a success; a wrong token on an update says
        // nothing changed (not that replicas now disagree).
        let (drop, dropOutput) = try admin(summary, ["drop-generation", "42"])
        XCTAssertEqual(drop, 1, dropOutput)
        XCTAssertTrue(dropOutput.contains("no replica holds generation 42"), dropOutput)
        let (refused, refusedOutput) = try admin(summary, ["delete", "sku-00001"], token: "wrong-token-0123456789")
        XCTAssertEqual(refused, 1, refusedOutput)
        XCTAssertTrue(refusedOutput.contains("nothing changed"), refusedOutput)
        // Each command explains itself without a cluster to talk to.
        let (help, helpOutput) = try run(["admin", "reindex", "--help"])
        XCTAssertEqual(help, 0, helpOutput)
        XCTAssertTrue(helpOutput.contains("--skip-invalid") && helpOutput.contains("--patience"), helpOutput)
    }
}
