import Foundation
import Synchronization
import XCTest

@testable import Observability

final class MetricsTests: XCTestCase {
    func testExpositionGolden() {
        let registry = MetricsRegistry()
        let requests = registry.counter(
            name: "typeahead_requests_total", help: "Requests handled.", labelNames: ["method", "status"])
        requests.labels(["method": "Suggest", "status": "OK"]).increment(by: 3)
        requests.labels(["status": "NOT_FOUND", "method": "Search"]).increment()
        requests.labels(["method": "Suggest", "status": "OK"]).increment()

        let inFlight = registry.gauge(name: "typeahead_in_flight", help: "Requests being served.")
        inFlight.increment(by: 3)
        inFlight.decrement()

        let latency = registry.histogram(
            name: "typeahead_request_seconds", help: "Latency.", labelNames: ["method"], buckets: [0.005, 0.125, 1])
        let suggest = latency.labels(["method": "Suggest"])
        // Binary-exact values, so that the sum is exact whatever the order of addition.
        suggest.observe(0.00390625)
        suggest.observe(.milliseconds(125))  // on the bound: counts as ≤ 0.125
        suggest.observe(0.25)
        suggest.observe(2)

        registry.gauge(name: "lmdb_map_size_bytes", help: "LMDB map size.") { 1_073_741_824 }

        // Registered but never given a series: left out.
        _ = registry.counter(name: "unused_total", help: "Never used.", labelNames: ["x"])

        XCTAssertEqual(registry.exposition(), """
            # HELP lmdb_map_size_bytes LMDB map size.
            # TYPE lmdb_map_size_bytes gauge
            lmdb_map_size_bytes 1073741824
            # HELP typeahead_in_flight Requests being served.
            # TYPE typeahead_in_flight gauge
            typeahead_in_flight 2
            # HELP typeahead_request_seconds Latency.
            # TYPE typeahead_request_seconds histogram
            typeahead_request_seconds_bucket{method="Suggest",le="0.005"} 1
            typeahead_request_seconds_bucket{method="Suggest",le="0.125"} 2
            typeahead_request_seconds_bucket{method="Suggest",le="1"} 3
            typeahead_request_seconds_bucket{method="Suggest",le="+Inf"} 4
            typeahead_request_seconds_sum{method="Suggest"} 2.37890625
            typeahead_request_seconds_count{method="Suggest"} 4
            # HELP typeahead_requests_total Requests handled.
            # TYPE typeahead_requests_total counter
            typeahead_requests_total{method="Search",status="NOT_FOUND"} 1
            typeahead_requests_total{method="Suggest",status="OK"} 4

            """)
    }

    func testUnlabelledSeriesAppearAtZero() {
        let registry = MetricsRegistry()
        _ = registry.counter(name: "c_total", help: "C.")
        _ = registry.histogram(name: "h_seconds", help: "H.", buckets: [1])
        XCTAssertEqual(registry.exposition(), """
            # HELP c_total C.
            # TYPE c_total counter
            c_total 0
            # HELP h_seconds H.
            # TYPE h_seconds histogram
            h_seconds_bucket{le="1"} 0
            h_seconds_bucket{le="+Inf"} 0
            h_seconds_sum 0
            h_seconds_count 0

            """)
    }

    func testLabelValueAndHelpEscaping() {
        let registry = MetricsRegistry()
        let counter = registry.counter(name: "escapes_total", help: "Back\\slash and\nnewline \"quotes stay\".",
                                       labelNames: ["v"])
        counter.labels(["v": "a\\b\"c\nd é"]).increment()
        XCTAssertEqual(registry.exposition(), #"""
            # HELP escapes_total Back\\slash and\nnewline "quotes stay".
            # TYPE escapes_total counter
            escapes_total{v="a\\b\"c\nd é"} 1

            """#)
    }

    func testHistogramBucketsAreCumulativeAndEndWithInf() {
        let registry = MetricsRegistry()
        let histogram = registry.histogram(name: "latency_seconds", help: "L.")
        let observations: [Double] = [0.00001, 0.00005, 0.0003, 0.004, 0.004, 0.07, 3, 9.99, 10, 11, 1e9, .nan]
        for value in observations { histogram.observe(value) }

        let series = histogram.labels([:])
        let cumulative = series.cumulativeCounts
        XCTAssertEqual(cumulative.count, Histogram.defaultLatencyBuckets.count + 1)
        XCTAssertEqual(zip(cumulative, cumulative.dropFirst()).allSatisfy { $0 <= $1 }, true)
        XCTAssertEqual(cumulative.last, UInt64(observations.count))
        XCTAssertEqual(series.count, UInt64(observations.count))
        // Bucket by bucket: how many observations are ≤ each bound (NaN is ≤ nothing).
        for (bound, count) in zip(Histogram.defaultLatencyBuckets, cumulative) {
            XCTAssertEqual(count, UInt64(observations.filter { $0 <= bound }.count), "le=\(bound)")
        }

        let lines = registry.exposition().split(separator: "\n")
        let buckets = lines.filter { $0.hasPrefix("latency_seconds_bucket") }
        XCTAssertEqual(buckets.first, #"latency_seconds_bucket{le="5e-05"} 2"#)
        XCTAssertEqual(buckets.last, #"latency_seconds_bucket{le="+Inf"} 12"#)
        XCTAssertTrue(lines.contains("latency_seconds_sum NaN"))
        XCTAssertTrue(lines.contains("latency_seconds_count 12"))
        XCTAssertEqual(Histogram.defaultLatencyBuckets.first, 0.000_05)
        XCTAssertEqual(Histogram.defaultLatencyBuckets.last, 10)
    }

    func testConcurrentUpdatesGiveExactTotals() {
        let registry = MetricsRegistry()
        let counter = registry.counter(name: "hits_total", help: "H.", labelNames: ["k"])
        let gauge = registry.gauge(name: "level", help: "L.")
        let histogram = registry.histogram(name: "h", help: "H.", buckets: [0.5, 1.5])
        let threads = 8, perThread = 100_000
        DispatchQueue.concurrentPerform(iterations: threads) { t in
            let mine = counter.labels(["k": "shared"])  // resolved once, as the hot path should
            for i in 0..<perThread {
                mine.increment()
                gauge.increment(by: t % 2 == 0 ? 1 : -0.5)
                histogram.observe(Double(i % 3))  // 0, 1, 2: one per bucket; sums exactly in binary
            }
        }
        let total = UInt64(threads * perThread)
        XCTAssertEqual(counter.labels(["k": "shared"]).value, total)
        XCTAssertEqual(gauge.value, Double(threads / 2 * perThread) * 0.5)
        let series = histogram.labels([:])
        XCTAssertEqual(series.count, total)
        XCTAssertEqual(series.cumulativeCounts, [
            UInt64(threads * 33_334), UInt64(threads * 66_667), total,
        ])
        XCTAssertEqual(series.sum, Double(threads * (33_333 * 1 + 33_333 * 2)))
    }

    func testConcurrentFirstUseCreatesOneSeries() {
        let registry = MetricsRegistry()
        let counter = registry.counter(name: "c_total", help: "C.", labelNames: ["a", "b"])
        DispatchQueue.concurrentPerform(iterations: 8) { t in
            for i in 0..<1000 {
                counter.labels(["a": String(i % 10), "b": String(t % 2)]).increment()
            }
        }
        let series = counter.table.snapshot()
        XCTAssertEqual(series.count, 20)
        XCTAssertEqual(series.reduce(0) { $0 + $1.series.value }, 8000)
        XCTAssertTrue(counter.labels(["a": "1", "b": "0"]) === counter.labels(["b": "0", "a": "1"]))
    }

    func testCallbackGaugesAreReadAtExpositionTime() {
        let registry = MetricsRegistry()
        let connections = Atomic<Int>(0)
        registry.gauge(name: "open_connections", help: "Open connections.") {
            Double(connections.load(ordering: .relaxed))
        }
        registry.gauge(name: "ratio", help: "R.") { 0.25 }
        registry.gauge(name: "broken", help: "B.") { -.infinity }
        XCTAssertTrue(registry.exposition().contains("\nopen_connections 0\n"))
        connections.store(42, ordering: .relaxed)
        let text = registry.exposition()
        XCTAssertTrue(text.contains("\nopen_connections 42\n"))
        XCTAssertTrue(text.contains("\nratio 0.25\n"))
        XCTAssertTrue(text.contains("\nbroken -Inf\n"))
    }

    /// A labelled callback family: one sample per listed series, in the order listed, the family
    /// left out while it lists none.
    func testLabelledCallbackFamiliesListTheirSeries() {
        let registry = MetricsRegistry()
        let caches = Mutex<[(String, Int)]>([])
        registry.gauge(name: "cache_bytes", help: "Bytes.", labelNames: ["cache"]) {
            caches.withLock { $0.map { CallbackSample(labelValues: [$0.0], value: Double($0.1)) } }
        }
        registry.counter(name: "cache_hits_total", help: "Hits.", labelNames: ["cache", "kind"]) {
            [CallbackSample(labelValues: ["a\"b", "x"], value: 3)]
        }
        XCTAssertFalse(registry.exposition().contains("cache_bytes"))
        caches.withLock { $0 = [("terms", 1024), ("filtered", 0)] }
        let text = registry.exposition()
        XCTAssertTrue(text.contains("# TYPE cache_bytes gauge\ncache_bytes{cache=\"terms\"} 1024\ncache_bytes{cache=\"filtered\"} 0\n"), text)
        XCTAssertTrue(text.contains("# TYPE cache_hits_total counter\ncache_hits_total{cache=\"a\\\"b\",kind=\"x\"} 3\n"), text)
    }

    /// The process series read this process's own figures: plausible, not exact (the process
    /// lives on while it is measured).
    func testProcessMetricsReadTheProcess() throws {
        let registry = MetricsRegistry()
        ProcessMetrics.register(in: registry)
        let pipe = Pipe()  // two descriptors more while the registry is read
        var values: [String: Double] = [:]
        for line in registry.exposition().split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ")
            values[String(parts[0])] = Double(parts[1])
        }
        withExtendedLifetime(pipe) {}
        let resident = try XCTUnwrap(values["process_resident_memory_bytes"])
        let anonymous = try XCTUnwrap(values["process_resident_anonymous_memory_bytes"])
        XCTAssertGreaterThan(anonymous, Double(1 << 20))
        XCTAssertLessThanOrEqual(anonymous, resident)
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(values["process_virtual_memory_bytes"]), resident)
        let open = try XCTUnwrap(values["process_open_fds"])
        XCTAssertGreaterThanOrEqual(open, 5)  // standard input, output, error and the pipe
        XCTAssertLessThan(open, try XCTUnwrap(values["process_max_fds"]))
        XCTAssertGreaterThan(try XCTUnwrap(values["process_cpu_seconds_total"]), 0)
        let started = try XCTUnwrap(values["process_start_time_seconds"])
        XCTAssertLessThanOrEqual(started, Date().timeIntervalSince1970 + 1)
        XCTAssertGreaterThan(started, Date().timeIntervalSince1970 - 86_400)
        // A megabyte held shows in the allocator's account of bytes in use.
        let before = try XCTUnwrap(values["typeahead_heap_bytes{state=\"in_use\"}"])
        XCTAssertNotNil(values["typeahead_heap_bytes{state=\"free\"}"])
        let held = [UInt8](repeating: 1, count: 1 << 20)
        let after = registry.exposition().split(separator: "\n").first { $0.hasPrefix("typeahead_heap_bytes{state=\"in_use\"}") }
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(after.flatMap { Double($0.split(separator: " ")[1]) }), before + Double(held.count) / 2)
        withExtendedLifetime(held) {}
    }

    func testCallbackMayUseTheRegistry() {
        let registry = MetricsRegistry()
        registry.counter(name: "hits_total", help: "H.").increment(by: 7)
        registry.gauge(name: "hits_mirror", help: "M.") { [unowned registry] in
            // Looks the counter up through the registry: would deadlock if read under its lock.
            Double(registry.counter(name: "hits_total", help: "H.").value)
        }
        XCTAssertTrue(registry.exposition().hasPrefix("# HELP hits_mirror M.\n# TYPE hits_mirror gauge\nhits_mirror 7\n"))
    }

    func testRegisteringAgainReturnsTheSameFamily() {
        let registry = MetricsRegistry()
        let a = registry.counter(name: "x_total", help: "X.", labelNames: ["k"])
        let b = registry.counter(name: "x_total", help: "X.", labelNames: ["k"])
        XCTAssertTrue(a === b)
        let h1 = registry.histogram(name: "h", help: "H.")
        XCTAssertTrue(h1 === registry.histogram(name: "h", help: "H."))
    }

    func testNumberFormatting() {
        XCTAssertEqual(Exposition.format(0), "0")
        XCTAssertEqual(Exposition.format(-0.0), "0")
        XCTAssertEqual(Exposition.format(10), "10")
        XCTAssertEqual(Exposition.format(-3), "-3")
        XCTAssertEqual(Exposition.format(0.25), "0.25")
        XCTAssertEqual(Exposition.format(0.00005), "5e-05")
        XCTAssertEqual(Exposition.format(1e20), "1e+20")
        XCTAssertEqual(Exposition.format(.infinity), "+Inf")
        XCTAssertEqual(Exposition.format(.nan), "NaN")
    }

    func testNameValidation() {
        XCTAssertTrue(Exposition.isValidMetricName("typeahead:requests_total"))
        XCTAssertFalse(Exposition.isValidMetricName("1abc"))
        XCTAssertFalse(Exposition.isValidMetricName("a-b"))
        XCTAssertFalse(Exposition.isValidMetricName(""))
        XCTAssertTrue(Exposition.isValidLabelName("_method"))
        XCTAssertFalse(Exposition.isValidLabelName("__reserved"))
        XCTAssertFalse(Exposition.isValidLabelName("a:b"))
    }

    /// A `/proc/self/status` field whose number fills its column follows the tab directly.
    func testStatusFieldsOfEveryWidthAreRead() {
        XCTAssertEqual(ProcessMetrics.parseStatus("VmSize:\t  227284 kB\nVmRSS:\t   1024 kB\n", field: "VmSize"), 227284 * 1024)
        XCTAssertEqual(ProcessMetrics.parseStatus("VmSize:\t123456789 kB\n", field: "VmSize"), 123456789 * 1024)
        XCTAssertNil(ProcessMetrics.parseStatus("VmRSS:\t1 kB\n", field: "VmSize"))
    }
}
