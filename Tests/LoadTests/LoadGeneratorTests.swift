import Catalog
import Foundation
import FoundationXML
import Load
import RPC
import Synchronization
import XCTest

/// The load generator against an in-process server that records what it receives: sessions are
/// typed as promised, and the report counts exactly what the server saw and answered.
///
/// Timing is never asserted (the machine is shared); runs are short and key delays tiny, with
/// generous liveness bounds only.
final class LoadGeneratorTests: XCTestCase {
    static let entries = [
        CatalogEntry(id: "1", title: "Red Shoes", weight: 50),
        CatalogEntry(id: "2", title: "Kitchen Towel", weight: 20),
        CatalogEntry(id: "3", title: "Zürich Café", weight: 5),
    ]

    var servers: [RecordingServer] = []

    override func tearDown() {
        for server in servers { server.shutdown() }
    }

    func server(_ rules: RecordingServer.Rules = .init()) throws -> RecordingServer {
        let server = try RecordingServer(rules)
        servers.append(server)
        return server
    }

    /// A short, fast-typing open-loop run: keys 1–3 ms apart, so sessions finish within the
    /// graceful stop.
    func openLoop(port: Int, rate: Double = 40, duration: Duration = .milliseconds(800)) -> LoadConfiguration {
        var configuration = LoadConfiguration(host: "127.0.0.1", port: port, mode: .openLoop(.sessions(rate), .poisson))
        configuration.duration = duration
        configuration.gracefulStop = .seconds(30)
        configuration.connections = 3
        configuration.threads = 2
        configuration.preflight = false
        configuration.seed = 42
        configuration.typing = TypingModel(keyDelay: .milliseconds(1) ... .milliseconds(3), typoRate: 0.2, backspaceRate: 0.1,
                                           submitRate: 1, maximumLength: 40)
        return configuration
    }

    /// The same, as a closed loop of `connections × streams`.
    func closedLoop(port: Int, streams: Int, connections: Int, duration: Duration) -> LoadConfiguration {
        var configuration = openLoop(port: port, duration: duration)
        configuration.mode = .closedLoop(streamsPerConnection: streams)
        configuration.connections = connections
        return configuration
    }

    func run(_ configuration: LoadConfiguration, source: TextSource = TextSource(entries: entries)) async throws -> LoadReport {
        let started = ContinuousClock.now
        let report = try await LoadGenerator(configuration: configuration, source: source).run()
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(60), "liveness")
        return report
    }

    /// Per session: revisions 1, 2, 3, … in arrival order, each text one character away from the
    /// previous, ending with a Search of the last text when `submits`.
    func assertSessionsTypedProperly(_ server: RecordingServer, submits: Bool, file: StaticString = #filePath, line: UInt = #line) {
        let sessions = server.sessions
        XCTAssertFalse(sessions.isEmpty, file: file, line: line)
        for (id, calls) in sessions {
            let suggests = calls.filter { $0.kind == "suggest" }
            XCTAssertEqual(suggests.map(\.revision), (1...UInt64(max(1, suggests.count))).map { $0 }, "session \(id): revisions", file: file, line: line)
            var previous = ""
            for call in suggests {
                XCTAssertTrue(WorkloadTests.differsByOneCharacter(previous, call.text), "session \(id): \"\(previous)\" → \"\(call.text)\"",
                              file: file, line: line)
                XCTAssertEqual(call.requestID, "\(id)/\(call.revision)", file: file, line: line)
                previous = call.text
            }
            if submits {
                XCTAssertEqual(calls.last?.kind, "search", "session \(id) ends with a Search", file: file, line: line)
                XCTAssertEqual(calls.last?.text, previous, "session \(id) searches what it typed", file: file, line: line)
                XCTAssertEqual(calls.filter { $0.kind == "search" }.count, 1, file: file, line: line)
            }
        }
    }

    func testOpenLoopTypesSessionsAndCountsWhatTheServerSaw() async throws {
        let server = try server(.init(supersedeEvery: 4, failEvery: 7, partialEvery: 5))
        let report = try await run(openLoop(port: server.port))
        assertSessionsTypedProperly(server, submits: true)

        let answers = server.answers.withLock { $0 }
        let sessions = server.sessions
        // Every session ran to its Search: nothing cut, all completed and submitted.
        XCTAssertEqual(report.sessions.started, sessions.count)
        XCTAssertEqual(report.sessions.completed, sessions.count)
        XCTAssertEqual(report.sessions.submitted, sessions.count)
        XCTAssertEqual(report.sessions.cut, 0)
        // Counts equal the server's.
        XCTAssertEqual(report.suggest.sent, server.count("suggest"))
        XCTAssertEqual(report.search.sent, server.count("search"))
        XCTAssertEqual(report.requests.sent, server.calls.withLock { $0.count })
        XCTAssertEqual(report.requests.superseded, answers.superseded)
        XCTAssertEqual(report.suggest.superseded, answers.superseded)
        XCTAssertEqual(report.suggest.errors, [LoadReport.StatusCount(status: "UNAVAILABLE", count: answers.unavailable, example: "test outage")])
        XCTAssertEqual(report.requests.failed, answers.unavailable, "superseded answers are not errors")
        XCTAssertEqual(report.requests.answered, answers.ok + answers.partial)
        XCTAssertEqual(report.requests.partial, answers.partial)
        XCTAssertEqual(report.shards.partial, answers.partial)
        XCTAssertEqual(report.shards.failedShards, answers.partial > 0 ? ["shard-1": answers.partial] : [:])
        XCTAssertEqual(report.shards.generations, ["7": answers.ok + answers.partial])
        XCTAssertEqual(report.suggest.latency.count, UInt64(report.suggest.answered))
        XCTAssertEqual(report.prefixLengths.map(\.latency.count).reduce(0, +), UInt64(report.suggest.answered))
        XCTAssertEqual(report.timeline.map(\.sent).reduce(0, +), report.requests.sent)
        XCTAssertGreaterThan(answers.superseded, 0)
        XCTAssertGreaterThan(answers.unavailable, 0)
        XCTAssertEqual(report.requests.byStatus.first { $0.status == "CANCELLED (superseded)" }?.count, answers.superseded)
        XCTAssertEqual(report.latencyMeasuredFrom, "intended send time")

        try assertReportFilesAreWellFormed(report)
    }

    /// report.json parses (and decodes back to the same report); latency.svg is well-formed XML.
    func assertReportFilesAreWellFormed(_ report: LoadReport, file: StaticString = #filePath, line: UInt = #line) throws {
        let directory = NSTemporaryDirectory() + "load-report-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let paths = try report.write(to: directory)
        XCTAssertEqual(paths.map { ($0 as NSString).lastPathComponent }, ["report.json", "latency.svg", "summary.txt"], file: file, line: line)

        let json = try Data(contentsOf: URL(fileURLWithPath: directory + "/report.json"))
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: json) as? [String: Any], file: file, line: line)
        XCTAssertEqual((object["requests"] as? [String: Any])?["sent"] as? Int, report.requests.sent, file: file, line: line)
        XCTAssertNotNil((object["histograms"] as? [String: Any])?["suggest"] as? [[Int]], file: file, line: line)
        XCTAssertEqual(try JSONDecoder().decode(LoadReport.self, from: json), report, file: file, line: line)

        let svg = try Data(contentsOf: URL(fileURLWithPath: directory + "/latency.svg"))
        let parser = XMLParser(data: svg)
        let elements = ElementCounter()
        parser.delegate = elements
        XCTAssertTrue(parser.parse(), "SVG is not well-formed: \(parser.parserError.map { "\($0)" } ?? "")", file: file, line: line)
        XCTAssertEqual(elements.root, "svg", file: file, line: line)
        XCTAssertGreaterThan(elements.counts["rect", default: 0], 1, file: file, line: line)
        if report.requests.answered > 0 {
            XCTAssertGreaterThan(elements.counts["polyline", default: 0] + elements.counts["circle", default: 0], 0, file: file, line: line)
        }
        let summary = try String(contentsOfFile: directory + "/summary.txt", encoding: .utf8)
        XCTAssertEqual(summary, report.summary(), file: file, line: line)
    }

    final class ElementCounter: NSObject, XMLParserDelegate {
        var root: String?
        var counts: [String: Int] = [:]
        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            if root == nil { root = name }
            counts[name, default: 0] += 1
        }
    }

    /// C connections × N streams, each waiting for its answer: never more than C × N calls at the
    /// server at once, sessions typed in order, counts equal.
    func testClosedLoopKeepsStreamsBusyAndCounts() async throws {
        let server = try server(.init(delay: .milliseconds(2)))
        let configuration = closedLoop(port: server.port, streams: 3, connections: 2, duration: .milliseconds(700))
        let report = try await run(configuration)
        assertSessionsTypedProperly(server, submits: false)
        XCTAssertLessThanOrEqual(server.concurrent.withLock { $0.maximum }, 6)
        XCTAssertEqual(report.requests.sent, server.calls.withLock { $0.count })
        XCTAssertEqual(report.requests.answered, report.requests.sent)
        XCTAssertEqual(report.sessions.started, server.sessions.count)
        XCTAssertEqual(report.sessions.started, report.sessions.completed + report.sessions.cut)
        XCTAssertLessThanOrEqual(report.sessions.cut, 6)
        XCTAssertEqual(report.settings.loop, "closed")
        XCTAssertEqual(report.latencyMeasuredFrom, "send time")
        XCTAssertGreaterThan(report.requests.sent, 6)
        try assertReportFilesAreWellFormed(report)
    }

    /// A query log's lines are what people type (and submit).
    func testQueriesAreTypedAndSubmitted() async throws {
        let server = try server()
        let queries = ["knife", "garden hose", "東京"]
        let report = try await run(openLoop(port: server.port, rate: 20, duration: .milliseconds(500)), source: TextSource(queries: queries))
        assertSessionsTypedProperly(server, submits: true)
        let searched = Set(server.calls.withLock { $0 }.filter { $0.kind == "search" }.map(\.text))
        XCTAssertTrue(searched.isSubset(of: Set(queries)), "\(searched)")
        XCTAssertEqual(report.search.sent, server.count("search"))
        XCTAssertEqual(report.shards.answersWithStatus, report.requests.answered)
    }

    /// Requests intended in the warmup load the server but are left out of the report.
    func testWarmupIsNotCounted() async throws {
        let server = try server()
        var configuration = openLoop(port: server.port, rate: 30, duration: .milliseconds(500))
        configuration.warmup = .milliseconds(400)
        let report = try await run(configuration)
        let seen = server.calls.withLock { $0.count }
        XCTAssertGreaterThan(report.requests.sent, 0)
        XCTAssertLessThan(report.requests.sent, seen)
        XCTAssertEqual(report.sessions.completed, report.sessions.started)
    }

    /// stop() ends a long run early, and the report covers what ran.
    func testStopEndsTheRunEarly() async throws {
        let server = try server()
        var configuration = openLoop(port: server.port, rate: 20, duration: .seconds(600))
        configuration.gracefulStop = .seconds(600)
        let generator = LoadGenerator(configuration: configuration, source: TextSource(entries: Self.entries))
        Task {
            try await Task.sleep(for: .milliseconds(400))
            generator.stop()
        }
        let started = ContinuousClock.now
        let report = try await generator.run()
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(60))
        XCTAssertLessThan(report.windowSeconds, 60)
        XCTAssertEqual(report.requests.sent, server.calls.withLock { $0.count })
    }

    func testUnreachableTargetIsAClearError() async throws {
        // A port that was just free: bind nothing there.
        let probe = try server()
        let port = probe.port
        probe.shutdown()
        var configuration = openLoop(port: port)
        configuration.preflight = true
        do {
            _ = try await LoadGenerator(configuration: configuration, source: TextSource(entries: Self.entries)).run()
            XCTFail("expected an error")
        } catch {
            XCTAssertEqual(error.kind, .target)
            XCTAssertTrue(error.message.hasPrefix("cannot connect to 127.0.0.1:\(port): "), error.message)
            XCTAssertFalse(error.message.contains("\n"))
        }
    }

    /// A server that requires a read token: the preflight says so; with the token the run works.
    func testPreflightAsksForTheTokenAndTheTokenIsSent() async throws {
        let token = "load-tests-read-token-0123456789"
        let server = try server(.init(readToken: token))
        var configuration = openLoop(port: server.port, rate: 20, duration: .milliseconds(300))
        configuration.preflight = true
        do {
            _ = try await LoadGenerator(configuration: configuration, source: TextSource(entries: Self.entries)).run()
            XCTFail("expected UNAUTHENTICATED")
        } catch {
            XCTAssertEqual(error.kind, .target)
            XCTAssertTrue(error.message.contains("--token-file"), error.message)
        }
        configuration.bearerToken = token
        let report = try await run(configuration)
        XCTAssertGreaterThan(report.requests.answered, 0)
        XCTAssertEqual(report.requests.failed, 0)
        // The preflight (no session) reached the server; the report does not count it.
        XCTAssertEqual(report.requests.sent, server.calls.withLock { $0.count } - 1)
    }

    /// A request-rate target becomes a session rate through the typing model's mean.
    func testRequestRateIsConvertedToSessions() async throws {
        let server = try server()
        var configuration = openLoop(port: server.port, duration: .milliseconds(300))
        configuration.mode = .openLoop(.requests(200), .uniform)
        let report = try await run(configuration)
        let perSession = configuration.typing.expectedRequestsPerSession(TextSource(entries: Self.entries), seed: configuration.seed)
        XCTAssertEqual(report.settings.targetRequestsPerSecond, 200)
        XCTAssertEqual(report.settings.targetSessionsPerSecond ?? 0, 200 / perSession, accuracy: 0.01)
        XCTAssertEqual(report.settings.arrivals, "uniform")
    }
}

extension LoadGeneratorTests {
    /// The server goes away in the middle of a closed loop: the streams wait for a reconnect that
    /// never comes, the run still ends on time, and every request sent is accounted for.
    func testClosedLoopSurvivesTheServerGoingAway() async throws {
        let server = try server(.init(delay: .milliseconds(1)))
        let configuration = closedLoop(port: server.port, streams: 2, connections: 2, duration: .milliseconds(1500))
        Task {
            try await Task.sleep(for: .milliseconds(500))
            server.shutdown()
        }
        let report = try await run(configuration)
        XCTAssertGreaterThanOrEqual(report.connections.lost, 1)
        XCTAssertEqual(report.connections.reconnects, 0)
        XCTAssertEqual(report.requests.sent, report.requests.answered + report.requests.superseded + report.requests.failed)
        XCTAssertGreaterThan(report.requests.answered, 0)
        XCTAssertLessThanOrEqual(report.requests.answered, server.calls.withLock { $0.count })
    }
}

extension LoadGeneratorTests {
    /// A server restarted on the same port: the lanes reconnect and the streams carry on there.
    func testClosedLoopReconnectsToARestartedServer() async throws {
        let first = try server()
        let port = first.port
        let configuration = closedLoop(port: port, streams: 2, connections: 2, duration: .seconds(3))
        let restarted = Mutex<RecordingServer?>(nil)
        Task {
            try await Task.sleep(for: .milliseconds(400))
            first.shutdown()
            try await Task.sleep(for: .milliseconds(100))
            restarted.withLock { $0 = try? RecordingServer(.init(port: port)) }
        }
        let report = try await run(configuration)
        let second = try XCTUnwrap(restarted.withLock { $0 }, "could not listen on \(port) again")
        servers.append(second)
        XCTAssertGreaterThanOrEqual(report.connections.reconnects, 1)
        XCTAssertGreaterThan(second.calls.withLock { $0.count }, 0, "streams went on after the reconnect")
        XCTAssertEqual(report.requests.answered, first.calls.withLock { $0.count } + second.calls.withLock { $0.count })
    }
}
