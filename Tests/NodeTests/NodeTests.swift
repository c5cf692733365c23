import Foundation
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Drives a real `typeahead node` process: builds a shard from the sample catalog, starts the node
/// on a free port, and talks to it with grpcio, curl and hand-built HTTP/2 (the Python scripts in
/// python/). Every node started here is stopped in tearDown (SIGTERM, then SIGKILL after 5 s).
final class NodeTests: XCTestCase {
    static let adminToken = "nodetests-admin-token-0123456789"

    /// The package root (this file is Tests/NodeTests/NodeTests.swift).
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let scripts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("python")

    static var binary: URL { BuiltProducts.typeahead }

    typealias Run = ChildRun

    final class NodeProcess {
        let process: Process
        let port: Int
        let log: String
        /// Curl's arguments to trust the node's TLS certificate, when it serves HTTPS.
        let trust: [String]?
        var address: String { "127.0.0.1:\(port)" }
        var base: String { (trust == nil ? "http" : "https") + "://127.0.0.1:\(port)" }
        var pid: Int32 { process.processIdentifier }

        init(process: Process, port: Int, log: String, trust: [String]? = nil) {
            self.process = process
            self.port = port
            self.log = log
            self.trust = trust
        }

        var logText: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

        /// Waits for exit up to `timeout`; true if the process exited.
        func waitForExit(timeout: TimeInterval) -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            while process.isRunning, Date() < deadline { usleep(20_000) }
            return !process.isRunning
        }

        /// SIGTERM, then SIGKILL if still running after 5 s.
        func stop() {
            guard process.isRunning else { return }
            kill(pid, SIGTERM)
            if !waitForExit(timeout: 5) {
                kill(pid, SIGKILL)
                process.waitUntilExit()
            }
        }
    }

    var directory: String!
    var shard: String!
    var tokenFile: String!
    var nodes: [NodeProcess] = []

    override func setUpWithError() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binary.path) else {
            throw XCTSkip("typeahead binary not built next to the tests")
        }
        directory = NSTemporaryDirectory() + "typeahead-node-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        tokenFile = directory + "/admin-token"
        try Data((Self.adminToken + "\n").utf8).write(to: URL(fileURLWithPath: tokenFile))
        shard = directory + "/shard"
        let catalog = Self.packageRoot.appendingPathComponent("deploy/catalog/sample.jsonl").path
        let indexed = try run(Self.binary.path, ["index", "--catalog", catalog, "--dir", shard])
        XCTAssertEqual(indexed.status, 0, indexed.transcript)
    }

    override func tearDown() {
        for node in nodes { node.stop() }
        nodes.removeAll()
        if let directory { try? FileManager.default.removeItem(atPath: directory) }
    }

    // MARK: Helpers

    @discardableResult
    func run(_ executable: String, _ arguments: [String], timeout: TimeInterval = 60) throws -> Run {
        try ChildRun.run(executable, arguments, timeout: timeout)
    }

    func python(_ script: String, _ arguments: [String], timeout: TimeInterval = 60) throws -> Run {
        try run("/usr/bin/env", ["python3", Self.scripts.appendingPathComponent(script).path] + arguments, timeout: timeout)
    }

    func curl(_ arguments: [String]) throws -> Run {
        try run("/usr/bin/env", ["curl", "--http2-prior-knowledge", "-sS", "--max-time", "10"] + arguments, timeout: 15)
    }

    /// A port that was free a moment ago: bind port 0, read the port, close.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else { throw POSIXError(.EADDRINUSE) }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw POSIXError(.EINVAL) }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Starts `typeahead node` on a free port and waits (bounded) until /readyz answers 200.
    /// - Parameter trust: curl's arguments to trust the node's certificate, for a node serving HTTPS.
    func startNode(_ extra: [String] = [], trust: [String]? = nil) throws -> NodeProcess {
        var lastLog = ""
        for _ in 0..<3 {  // a port taken between freePort() and the node's bind: try another
            let port = try Self.freePort()
            let log = directory + "/node-\(port).log"
            _ = FileManager.default.createFile(atPath: log, contents: nil)
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
            let process = Process()
            process.executableURL = Self.binary
            process.arguments = ["node", "--dir", shard, "--listen", "127.0.0.1:\(port)",
                                 "--admin-token-file", tokenFile, "--threads", "2"] + extra
            process.standardOutput = handle
            process.standardError = handle
            process.standardInput = FileHandle.nullDevice
            try process.run()
            try? handle.close()
            let node = NodeProcess(process: process, port: port, log: log, trust: trust)
            nodes.append(node)
            for _ in 0..<100 {
                if !process.isRunning { break }
                if let ready = try? curl((trust ?? []) + ["-o", "/dev/null", "-w", "%{http_code}", "--max-time", "1", node.base + "/readyz"]),
                   ready.stdout == "200" {
                    return node
                }
                usleep(50_000)
            }
            lastLog = node.logText
            node.stop()
        }
        throw XCTSkip("typeahead node did not become ready:\n\(lastLog)")
    }

    func assertPassed(_ result: Run, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(result.status, 0, "\(what) failed:\n\(result.transcript)", file: file, line: line)
        XCTAssertTrue(result.stdout.contains("PASSED"), "\(what) did not finish:\n\(result.transcript)", file: file, line: line)
    }

    // MARK: Tests

    /// Every method through grpcio (a real gRPC client), including its error paths.
    func testGRPCClientCallsEveryMethod() throws {
        let node = try startNode()
        let result = try python("grpc_client_test.py", ["--addr", node.address, "--token", Self.adminToken,
                                                        "--proto-dir", Self.packageRoot.appendingPathComponent("proto").path])
        assertPassed(result, "grpc_client_test.py")
        if result.status != 0 { print(node.logText) }
    }

    /// A JSON answer with its `shards` member removed, re-serialized with sorted keys.
    static func withoutShards(_ text: String) throws -> String {
        var object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text)
        object["shards"] = nil
        return String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    /// The JSON and operator endpoints through curl.
    func testCurlEndpoints() throws {
        let node = try startNode()
        let cli = try run(Self.binary.path, ["suggest", "--json", "--dir", shard, "red sh"])
        XCTAssertEqual(cli.status, 0, cli.transcript)

        // GET answers the Suggest method's JSON: the CLI's answer plus the node's shard status.
        let suggest = try curl([node.base + "/v1/suggest?q=red%20sh"])
        XCTAssertEqual(suggest.status, 0, suggest.transcript)
        XCTAssertEqual(try Self.withoutShards(suggest.stdout), try Self.withoutShards(cli.stdout),
                       "GET /v1/suggest differs from typeahead suggest --json")
        XCTAssertTrue(suggest.stdout.contains(#""shards":{"total":1,"succeeded":1,"failed":0"#), suggest.stdout)
        let posted = try curl(["-H", "content-type: application/json", "-d", #"{"text":"red sh"}"#,
                               node.base + "/typeahead.v1.Typeahead/Suggest"])
        XCTAssertEqual(posted.stdout, suggest.stdout, "GET /v1/suggest and the Connect POST differ")

        let search = try curl(["-w", "\n%{http_code}", node.base + "/v1/search?q=red&pageSize=3&sort=weight"])
        XCTAssertTrue(search.stdout.hasSuffix("\n200"), search.transcript)
        let searchJSON = try XCTUnwrap(try JSONSerialization.jsonObject(
            with: Data(search.stdout.dropLast(4).utf8)) as? [String: Any], search.stdout)
        let hits = try XCTUnwrap(searchJSON["hits"] as? [[String: Any]], search.stdout)
        XCTAssertEqual(hits.count, 3)
        let weights = hits.compactMap { $0["weight"] as? Int }
        XCTAssertEqual(weights, weights.sorted(by: >), "sort=weight")
        XCTAssertNotNil(searchJSON["nextPageToken"] as? String, search.stdout)
        let bad = try curl(["-w", "\n%{http_code}", node.base + "/v1/search?q=red&pageToken=%21garbage"])
        XCTAssertTrue(bad.stdout.hasSuffix("\n400") && bad.stdout.contains("\"invalid_argument\""), bad.transcript)

        let post = try curl(["-w", "\n%{http_code}", "-H", "content-type: application/json",
                             "-d", #"{"text":"red sh","session":"s1","revision":"3"}"#,
                             node.base + "/typeahead.v1.Typeahead/Suggest"])
        XCTAssertTrue(post.stdout.hasSuffix("\n200"), post.transcript)
        let postJSON = try XCTUnwrap(try JSONSerialization.jsonObject(
            with: Data(post.stdout.dropLast(4).utf8)) as? [String: Any], post.stdout)
        XCTAssertEqual(postJSON["session"] as? String, "s1")
        XCTAssertFalse((postJSON["entries"] as? [Any] ?? []).isEmpty, post.stdout)

        let unknown = try curl(["-w", "\n%{http_code}", "-H", "content-type: application/json",
                                "-d", #"{"text":"red sh","bogus":1}"#, node.base + "/typeahead.v1.Typeahead/Suggest"])
        XCTAssertTrue(unknown.stdout.hasSuffix("\n400"), unknown.transcript)
        let errorJSON = try XCTUnwrap(try JSONSerialization.jsonObject(
            with: Data(unknown.stdout.dropLast(4).utf8)) as? [String: Any], unknown.stdout)
        XCTAssertEqual(errorJSON["code"] as? String, "invalid_argument")
        XCTAssertNotNil(errorJSON["message"] as? String)

        let healthz = try curl(["-w", "%{http_code}", "-o", "/dev/null", node.base + "/healthz"])
        XCTAssertEqual(healthz.stdout, "200", healthz.transcript)
        let readyz = try curl(["-w", "%{http_code}", "-o", "/dev/null", node.base + "/readyz"])
        XCTAssertEqual(readyz.stdout, "200", readyz.transcript)
        let missing = try curl(["-w", "%{http_code}", "-o", "/dev/null", node.base + "/nope"])
        XCTAssertEqual(missing.stdout, "404", missing.transcript)

        // /metrics used to deadlock the event loop that answered it (see the commit that fixed it).
        let metrics = try curl([node.base + "/metrics"])
        XCTAssertEqual(metrics.status, 0, metrics.transcript)
        let text = metrics.stdout
        for needle in [#"typeahead_requests_total{method="GET /v1/suggest",code="OK"} 1"#,
                       #"typeahead_requests_total{method="GET /v1/search",code="OK"} 1"#,
                       #"typeahead_requests_total{method="GET /v1/search",code="INVALID_ARGUMENT"} 1"#,
                       #"typeahead_requests_total{method="/typeahead.v1.Typeahead/Suggest",code="OK"} 2"#,
                       #"typeahead_requests_total{method="/typeahead.v1.Typeahead/Suggest",code="INVALID_ARGUMENT"} 1"#,
                       #"typeahead_request_duration_seconds_bucket{method="GET /v1/suggest",le="+Inf"} 1"#,
                       "# TYPE typeahead_request_duration_seconds histogram",
                       "\ntypeahead_index_entries 1600\n",
                       // The query caches, one series each, and the process's own figures.
                       #"typeahead_index_cache_entries{cache="term_matches"} "#,
                       #"typeahead_index_cache_bytes{cache="filtered"} "#,
                       #"typeahead_index_cache_retired_total{cache="filtered_category_counts"} "#,
                       // The trie of the delta's words (none built: this node's delta is empty).
                       #"typeahead_index_delta_trie_builds_total{by="background"} 0"#, "\ntypeahead_index_delta_trie_walks_total 0\n",
                       // The deleted documents' bitmap (none built: nothing is deleted).
                       #"typeahead_index_deleted_bitmap_builds_total{by="query"} 0"#, "\ntypeahead_index_deleted_bitmap_lookups_total 0\n",
                       // The chips' words in memory (built by the first typo'd word of a snapshot).
                       #"typeahead_index_chip_words_builds_total{by="background"} 0"#, "\ntypeahead_index_chip_words_walks_total 0\n",
                       "\nprocess_open_fds ", "\nprocess_resident_anonymous_memory_bytes ",
                       #"typeahead_heap_bytes{state="in_use"} "#,
                       // Admission of searches, and the plans behind computed suggest answers.
                       #"typeahead_search_queue_jobs{state="waiting"} 0"#,
                       #"typeahead_suggest_plan_total{plan="trie"} "#, #"typeahead_suggest_plan_total{plan="general"} "#] {
            XCTAssertTrue(text.contains(needle), "/metrics lacks \(needle):\n\(text)")
        }
        let planned = text.split(separator: "\n").filter { $0.hasPrefix("typeahead_suggest_plan_total{") }
            .compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }.reduce(0, +)
        XCTAssertGreaterThanOrEqual(planned, 1, "every computed suggest answer is counted under its plan:\n\(text)")
        // The category counts are bounded by entries alone: no bytes series for them.
        XCTAssertFalse(text.contains(#"typeahead_index_cache_bytes{cache="filtered_category_counts"}"#), text)
        // The node still answers after /metrics.
        let again = try curl([node.base + "/v1/suggest?q=red%20sh"])
        XCTAssertEqual(again.stdout, suggest.stdout)
    }

    /// A JSON body of many values (3.6 MB, 100,000 tokens) is refused before it is parsed, so the
    /// node's peak memory grows by about the bodies in flight, not by the trees they would make
    /// (this took a node from 49 to 662 MB when the body was parsed first). 30 requests, 8 at a time.
    func testBigJSONBodiesCostTheirBytesNotATree() throws {
        let node = try startNode()
        var body = #"{"text":"red","tokens":["#
        body += Array(repeating: #"{"kind":"category","value":"abcd"}"#, count: 100_000).joined(separator: ",")
        body += "]}"
        let file = directory + "/big.json"
        try Data(body.utf8).write(to: URL(fileURLWithPath: file))
        func peakKiB() throws -> Int {
            let status = try String(contentsOfFile: "/proc/\(node.pid)/status", encoding: .utf8)
            let line = try XCTUnwrap(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
            return try XCTUnwrap(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
        }
        let before = try peakKiB()
        let script = "seq 30 | xargs -P 8 -I{} curl --http2-prior-knowledge -s -o /dev/null -w '%{http_code}\\n' "
            + "-H 'content-type: application/json' --data-binary @\(file) \(node.base)/typeahead.v1.Typeahead/Suggest"
        let result = try run("/bin/sh", ["-c", script], timeout: 120)
        XCTAssertEqual(result.status, 0, result.transcript)
        let codes = result.stdout.split(separator: "\n")
        XCTAssertEqual(codes.count, 30, result.transcript)
        // Over the JSON body limit: RESOURCE_EXHAUSTED, which Connect answers 429.
        XCTAssertTrue(codes.allSatisfy { $0 == "429" }, result.stdout)
        let grown = try peakKiB() - before
        let bodyKiB = body.utf8.count / 1024
        XCTAssertLessThan(grown, 8 * 4 * bodyKiB + 64 * 1024, "peak memory grew by \(grown) KiB for 8 bodies of \(bodyKiB) KiB in flight")
        // A body under the byte limit but of too many values is refused by its shape, also unparsed.
        let many = #"{"text":"red","tokens":["# + Array(repeating: "{}", count: 2000).joined(separator: ",") + "]}"
        let refused = try curl(["-w", "\n%{http_code}", "-H", "content-type: application/json", "-d", many,
                                node.base + "/typeahead.v1.Typeahead/Suggest"])
        XCTAssertTrue(refused.stdout.hasSuffix("\n400") && refused.stdout.contains("more than 1024 JSON values"), refused.transcript)
        // And the node still answers.
        let ok = try curl(["-w", "\n%{http_code}", node.base + "/v1/suggest?q=red"])
        XCTAssertTrue(ok.stdout.hasSuffix("\n200"), ok.transcript)
    }

    /// Broken frames, floods and bad gRPC framing; the node keeps serving and its memory stays bounded.
    /// A search key derived by the CLI (`typeahead admin search-key`) opens reads on a node started
    /// with the same secret and narrows them to its tokens, on GET, JSON POST and search alike;
    /// the request cannot widen it, an expired or foreign key is refused, and so is a key on a
    /// node that has no secret.
    func testSearchKeysFromTheCLINarrowReads() throws {
        let secrets = directory + "/search-keys"
        try Data("retired-secret-of-thirty-two-bytes-or-more\n\(String(repeating: "5", count: 64))\n".utf8)
            .write(to: URL(fileURLWithPath: secrets))
        let foreign = directory + "/foreign"
        try Data(String(repeating: "f", count: 64).utf8).write(to: URL(fileURLWithPath: foreign))
        func derive(_ file: String, _ extra: [String] = []) throws -> String {
            let made = try run(Self.binary.path, ["admin", "search-key", "--secret-file", file, "--token", "category=Kitchen", "--label", "kitchen"] + extra)
            XCTAssertEqual(made.status, 0, made.transcript)
            XCTAssertTrue(made.stderr.contains("expires 20"), made.transcript)
            return made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let key = try derive(secrets)
        XCTAssertTrue(key.hasPrefix("tsk1."), key)
        let shortLived = try derive(secrets, ["--expires-in", "1"])
        let node = try startNode(["--search-key-secret-file", secrets, "--read-token-file", tokenFile])
        func json(_ arguments: [String]) throws -> [String: Any] {
            let answer = try curl(arguments)
            return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(answer.stdout.utf8)) as? [String: Any], answer.transcript)
        }
        func categories(_ object: [String: Any], _ section: String) -> [[String]] {
            ((object[section] as? [[String: Any]]) ?? []).map { $0["categories"] as? [String] ?? [] }
        }
        let bearer = ["-H", "authorization: Bearer \(key)"]
        let open = try json(["-H", "authorization: Bearer \(Self.adminToken)", node.base + "/v1/suggest?q=c"])
        XCTAssertTrue(categories(open, "entries").contains { !$0.contains("Kitchen") }, "the catalog has more than kitchens")
        let keyed = try json(bearer + [node.base + "/v1/suggest?q=c"])
        XCTAssertFalse(categories(keyed, "entries").isEmpty, "\(keyed)")
        XCTAssertTrue(categories(keyed, "entries").allSatisfy { $0.contains("Kitchen") }, "\(keyed)")
        let searched = try json(bearer + [node.base + "/v1/search?q=&pageSize=100"])
        XCTAssertTrue(categories(searched, "hits").allSatisfy { $0.contains("Kitchen") }, "\(searched)")
        let kitchens = try json(["-H", "authorization: Bearer \(Self.adminToken)", "-H", "content-type: application/json",
                                 "-d", #"{"text":"","tokens":[{"kind":"category","value":"Kitchen"}],"pageSize":1}"#,
                                 node.base + "/typeahead.v1.Typeahead/Search"])
        XCTAssertGreaterThan(kitchens["totalHits"] as? Int ?? 0, 50, "\(kitchens)")
        XCTAssertEqual(searched["totalHits"] as? Int, kitchens["totalHits"] as? Int, "every kitchen entry, nothing else")
        // Asking for books as well: the intersection (no entry is both), never the books.
        let widened = try json(bearer + ["-H", "content-type: application/json",
                                         "-d", #"{"text":"","tokens":[{"kind":"category","value":"Books"}],"pageSize":10}"#,
                                         node.base + "/typeahead.v1.Typeahead/Search"])
        XCTAssertEqual(widened["totalHits"] as? Int ?? 0, 0, "\(widened)")
        // Refusals: a foreign secret, an expired key, a key on a node without secrets.
        func refusal(_ key: String, _ base: String) throws -> String {
            let answer = try curl(["-H", "authorization: Bearer \(key)", "-w", "\n%{http_code}", base + "/v1/suggest?q=c"])
            return answer.stdout
        }
        let forged = try refusal(try derive(foreign), node.base)
        XCTAssertTrue(forged.hasSuffix("\n401") && forged.contains("SEARCH_KEY_FORGED"), forged)
        Thread.sleep(forTimeInterval: 1.2)
        let expired = try refusal(shortLived, node.base)
        XCTAssertTrue(expired.hasSuffix("\n401") && expired.contains("SEARCH_KEY_EXPIRED"), expired)
        let plain = try startNode()
        let unverifiable = try refusal(key, plain.base)
        XCTAssertTrue(unverifiable.hasSuffix("\n401") && unverifiable.contains("--search-key-secret-file"), unverifiable)
        // A short secret is refused at start-up, with the line.
        let short = directory + "/short"
        try Data("short\n".utf8).write(to: URL(fileURLWithPath: short))
        let refused = try run(Self.binary.path, ["node", "--dir", shard, "--search-key-secret-file", short, "--listen", "127.0.0.1:0"])
        XCTAssertEqual(refused.status, 1, refused.transcript)
        XCTAssertTrue(refused.stderr.contains("line 1"), refused.transcript)
    }

    /// HTTPS with ALPN on a node: curl over HTTP/2 and HTTP/1.1, grpcio with TLS channel
    /// credentials (and refused without the CA, or in cleartext), and a renewed certificate served
    /// after SIGHUP without a restart.
    func testTLS() throws {
        func certificate(_ name: String) throws -> (String, String) {
            let crt = directory + "/\(name).crt", key = directory + "/\(name).key"
            let made = try run("/usr/bin/env", ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                                                "-nodes", "-days", "1", "-subj", "/CN=\(name)", "-addext",
                                                "subjectAltName=IP:127.0.0.1,DNS:localhost", "-keyout", key, "-out", crt])
            guard made.status == 0 else { throw XCTSkip("openssl could not make a certificate: \(made.transcript)") }
            return (crt, key)
        }
        let first = try certificate("first"), second = try certificate("second")
        let served = (directory + "/served.crt", directory + "/served.key")
        try FileManager.default.copyItem(atPath: first.0, toPath: served.0)
        try FileManager.default.copyItem(atPath: first.1, toPath: served.1)
        let node = try startNode(["--tls-cert", served.0, "--tls-key", served.1], trust: ["--cacert", first.0])
        XCTAssertTrue(node.logText.contains("on https://"), node.logText)
        for version in ["--http2", "--http1.1"] {
            let answer = try curl(["--cacert", first.0, version, "-w", "\n%{http_version}", node.base + "/v1/suggest?q=red%20sh"])
            XCTAssertEqual(answer.status, 0, answer.transcript)
            XCTAssertTrue(answer.stdout.contains(#""entries":[{"#), answer.stdout)
            XCTAssertTrue(answer.stdout.hasSuffix(version == "--http2" ? "\n2" : "\n1.1"), answer.stdout)
        }
        let grpc = try python("tls_client_test.py", ["--addr", node.address, "--ca", first.0,
                                                      "--proto-dir", Self.packageRoot.appendingPathComponent("proto").path])
        assertPassed(grpc, "tls_client_test.py")
        // Renewal: new files, SIGHUP, and new connections get the new certificate.
        try FileManager.default.removeItem(atPath: served.0)
        try FileManager.default.removeItem(atPath: served.1)
        try FileManager.default.copyItem(atPath: second.0, toPath: served.0)
        try FileManager.default.copyItem(atPath: second.1, toPath: served.1)
        kill(node.pid, SIGHUP)
        var renewed = false
        for _ in 0..<50 where !renewed {
            renewed = (try? curl(["--cacert", second.0, "-o", "/dev/null", node.base + "/healthz"]))?.status == 0
            if !renewed { usleep(50_000) }
        }
        XCTAssertTrue(renewed, node.logText)
        XCTAssertTrue(node.logText.contains("SIGHUP: reloaded"), node.logText)
        XCTAssertNotEqual(try curl(["--cacert", first.0, node.base + "/healthz"]).status, 0, "the old certificate is gone")
        // One of the two files without the other is a usage error at start-up.
        let half = try run(Self.binary.path, ["node", "--dir", shard, "--tls-cert", served.0, "--listen", "127.0.0.1:0"])
        XCTAssertEqual(half.status, 2, half.transcript)
    }

    func testMalformedInput() throws {
        let node = try startNode(["--max-message-bytes", "1048576"])
        let result = try python("malformed_test.py", ["--addr", node.address, "--pid", String(node.pid),
                                                      "--max-message-bytes", "1048576", "--rss-limit-mib", "300"])
        assertPassed(result, "malformed_test.py")
        XCTAssertTrue(node.process.isRunning, "the node died:\n\(node.logText)")
    }

    /// The hostile-client probe of issue 14 as one suite (`hostile_client_test.py`): floods of
    /// SETTINGS, PING and CONTINUATION frames and rapid resets, smuggling, pipelining, traversal,
    /// RFC 9112 heads, slowloris, query-string and JSON edge cases, malformed gRPC, admin calls
    /// without or with a wrong token, absurd generation numbers. Each case asserts its answer; the
    /// node keeps serving throughout and its memory stays bounded.
    func testHostileClients() throws {
        let node = try startNode(["--request-head-timeout", "1"])
        let result = try python("hostile_client_test.py", ["--addr", node.address, "--pid", String(node.pid),
                                                           "--admin-token", Self.adminToken, "--shard-dir", shard,
                                                           "--request-head-timeout", "1", "--rss-limit-mib", "400"], timeout: 240)
        assertPassed(result, "hostile_client_test.py")
        XCTAssertTrue(node.process.isRunning, "the node died:\n\(node.logText)")
    }

    /// SIGTERM with searches in flight: they complete, the node exits 0 within the grace period.
    func testGracefulShutdownCompletesInFlightSearches() throws {
        let node = try startNode()
        let started = Date()
        let result = try python("shutdown_test.py", ["--addr", node.address, "--pid", String(node.pid)], timeout: 30)
        assertPassed(result, "shutdown_test.py")
        XCTAssertTrue(node.waitForExit(timeout: 12), "the node did not exit within the 10 s grace period:\n\(node.logText)")
        XCTAssertEqual(node.process.terminationReason, .exit, node.logText)
        XCTAssertEqual(node.process.terminationStatus, 0, node.logText)
        XCTAssertLessThan(Date().timeIntervalSince(started), 12)
        XCTAssertTrue(node.logText.contains("node stopped"), node.logText)
    }
}

extension ChildRun {
    /// Everything about the run, for assertion messages.
    var transcript: String { "exit \(status)\n--- stdout\n\(stdout)\n--- stderr\n\(stderr)" }
}
