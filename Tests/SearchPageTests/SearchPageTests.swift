import Cluster
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Launcher
import TestSupport
import XCTest

/// The search page (`GET /`) in real headless Chromium (Debian's `chromium` and `chromium-driver`,
/// Selenium from PyPI; `scripts/setup.sh` installs them) against a real local cluster: a
/// coordinator over two shards, and one of its nodes on its own. `python/search_page_test.py`
/// holds the checks; each compares what the page shows with the same call made to the JSON API.
/// A second cluster serves the sample as `typeahead local` does by default (the collections
/// products and departments, the scope `all`) for the scope picker's checks (`--scoped`).
///
/// The screenshot in the README is the one the scoped test takes:
/// `TYPEAHEAD_SCREENSHOT=$PWD/Tests/SearchPageTests/search-page.png swift test --filter SearchPageTests`.
final class SearchPageTests: XCTestCase {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("python/search_page_test.py").path

    nonisolated(unsafe) static var sample: SampleCluster?
    nonisolated(unsafe) static var scoped: SampleCluster?

    override func setUp() async throws {
        guard FileManager.default.isExecutableFile(atPath: BuiltProducts.typeahead.path) else {
            throw XCTSkip("typeahead binary not built next to the tests")
        }
        // scripts/setup.sh installs the browser: without it this is a broken set-up, not a skip.
        for tool in ["/usr/bin/chromium", "/usr/bin/chromedriver"] {
            XCTAssertTrue(FileManager.default.isExecutableFile(atPath: tool), "\(tool) missing: run scripts/setup.sh")
        }
        if Self.sample == nil { Self.sample = try await SampleCluster.start("typeahead-page") }
    }

    override class func tearDown() {
        sample?.stop()
        sample = nil
        scoped?.stop()
        scoped = nil
    }

    func testTheCoordinatorsPageInChromium() throws {
        let coordinator = Self.sample!.summary.coordinator
        try drive("http://\(coordinator.host):\(coordinator.port)", shards: 2, screenshot: nil)
    }

    /// The scope picker against the run command's cluster: Describe's scopes and collections, the
    /// scope's prompt, a scoped keystroke's sections, a collection's unscoped answer, a scoped
    /// submit's sections and a section paged by its collection.
    func testTheScopePickerInChromium() async throws {
        if Self.scoped == nil { Self.scoped = try await SampleCluster.start("typeahead-page-scoped", scoped: true) }
        let coordinator = Self.scoped!.summary.coordinator
        let screenshot = ProcessInfo.processInfo.environment["TYPEAHEAD_SCREENSHOT"]
            ?? Self.scoped!.directory.path + "/search-page.png"
        try drive("http://\(coordinator.host):\(coordinator.port)", shards: 2, scoped: true, screenshot: screenshot)
        XCTAssertTrue(FileManager.default.fileExists(atPath: screenshot), "the test writes the README's screenshot")
    }

    func testANodesPageInChromium() throws {
        let node = Self.sample!.summary.nodes[0][0]
        try drive("http://\(node.host):\(node.port)", shards: 1, screenshot: nil)
    }

    /// The page's headers: it may run only its own script and talk only to its own server.
    func testThePageIsServedWithAStrictPolicy() async throws {
        let coordinator = Self.sample!.summary.coordinator
        for path in ["/", "/index.html"] {
            let (body, response) = try await URLSession.shared.data(from: URL(string: "http://\(coordinator.host):\(coordinator.port)\(path)")!)
            let http = try XCTUnwrap(response as? HTTPURLResponse)
            XCTAssertEqual(http.statusCode, 200)
            XCTAssertEqual(http.value(forHTTPHeaderField: "content-type"), "text/html; charset=utf-8")
            let policy = try XCTUnwrap(http.value(forHTTPHeaderField: "content-security-policy"))
            XCTAssertTrue(policy.contains("default-src 'none'") && policy.contains("connect-src 'self'"), policy)
            XCTAssertEqual(http.value(forHTTPHeaderField: "x-content-type-options"), "nosniff")
            let html = String(decoding: body, as: UTF8.self)
            XCTAssertTrue(html.hasPrefix("<!doctype html>"))
            // Server values reach the page as text only: no markup is built from strings.
            XCTAssertFalse(html.contains("innerHTML"), "the page must not build markup from server strings")
        }
    }

    private func drive(_ url: String, shards: Int, scoped: Bool = false, screenshot: String?) throws {
        var arguments = [Self.script, "--url", url, "--shards", String(shards)]
        if scoped { arguments.append("--scoped") }
        if let screenshot { arguments += ["--screenshot", screenshot] }
        let run = try ChildRun.run("/usr/bin/env", ["python3"] + arguments, timeout: 180)
        XCTAssertFalse(run.timedOut, "the browser test timed out:\n\(run.output)")
        XCTAssertEqual(run.status, 0, run.output)
        let last = scoped ? "ok the scope picker's checks" : "ok 'More results' pages to the end"
        XCTAssertTrue(run.stdout.contains(last), run.output)
    }
}
