import Foundation

extension LoadReport {
    /// The text summary `typeahead load` prints: what ran, achieved rates, statuses, latency
    /// percentiles per kind and per prefix length, the generator's own lag, shards.
    ///
    /// ```
    /// typeahead load: open loop, Poisson arrivals at 50 sessions/s, 20 s, 4 connections → 127.0.0.1:7790
    ///   sessions   1003 started (50.15/s), 998 completed, 497 submitted, 5 cut
    ///   requests   10412 sent (512.3/s): 10166 OK, 240 superseded, 6 failed
    ///   latency from the intended send time (answered requests)
    ///                          p50       p90       p99     p99.9       max         n
    ///     suggest          812.0 µs   1.90 ms   4.31 ms   9.80 ms   12.1 ms      9920
    /// ```
    public func summary() -> String {
        var lines: [String] = []
        let s = settings
        let shape: String
        if s.loop == "open" {
            let rate = s.targetRequestsPerSecond.map { "\(Self.number($0)) requests/s (\(Self.number(s.targetSessionsPerSecond ?? 0)) sessions/s)" }
                ?? "\(Self.number(s.targetSessionsPerSecond ?? 0)) sessions/s"
            shape = "open loop, \(s.arrivals == "uniform" ? "uniform" : "Poisson") arrivals at \(rate)"
        } else {
            shape = "closed loop (--max), \(s.connections) × \(s.streamsPerConnection ?? 0) streams"
        }
        lines.append("typeahead load: \(shape), \(Self.number(s.durationSeconds)) s"
                     + (s.warmupSeconds > 0 ? " after \(Self.number(s.warmupSeconds)) s warmup" : "")
                     + ", \(s.connections) connection\(s.connections == 1 ? "" : "s") on \(s.threads) thread\(s.threads == 1 ? "" : "s") → \(s.target)")
        lines.append("  texts      \(s.source) (\(s.texts) texts), seed \(s.seed), typos \(Self.number(s.typoRate)), "
                     + "backspaces \(Self.number(s.backspaceRate)), submit \(Self.number(s.submitRate)), keys \(Self.number(s.keyDelayMilliseconds[0]))-\(Self.number(s.keyDelayMilliseconds[1])) ms")
        lines.append("  window     \(Self.number(windowSeconds)) s measured, \(Self.number(elapsedSeconds)) s until the last answer; session ids \(s.runID)-…")
        lines.append("  sessions   \(sessions.started) started (\(Self.number(sessions.perSecond))/s), \(sessions.completed) completed, "
                     + "\(sessions.submitted) submitted, \(sessions.cut) cut")
        lines.append("  requests   \(requests.sent) sent (\(Self.number(requests.perSecond))/s): \(requests.answered) OK"
                     + (requests.partial > 0 ? " (\(requests.partial) partial)" : "")
                     + ", \(requests.superseded) superseded, \(requests.failed) failed")
        lines.append("             suggest \(suggest.sent) sent, \(suggest.answered) OK, \(suggest.superseded) superseded, \(suggest.failed) failed; "
                     + "search \(search.sent) sent, \(search.answered) OK, \(search.failed) failed")
        lines.append("  statuses   " + requests.byStatus.map { "\($0.status) \($0.count)" }.joined(separator: " · "))
        for kind in [("suggest", suggest), ("search", search)] {
            for error in kind.1.errors {
                lines.append("  error      \(kind.0) \(error.status) ×\(error.count)" + (error.example.map { ": \($0)" } ?? ""))
            }
        }
        lines.append("  latency from the \(latencyMeasuredFrom) (answered requests)")
        lines.append("    " + Self.column("", 20) + ["p50", "p90", "p99", "p99.9", "max"].map { Self.right($0, 10) }.joined() + Self.right("n", 10))
        lines.append("    " + Self.row("suggest", suggest.latency))
        lines.append("    " + Self.row("search", search.latency))
        lines.append("    suggest by prefix length (characters)")
        for prefix in prefixLengths { lines.append("    " + Self.row("  " + prefix.characters, prefix.latency)) }
        if settings.loop == "open" {
            lines.append("    " + Self.row("service time", suggest.serviceTime) + "   (suggest, from the actual send)")
            lines.append("    " + Self.row("send lag", sendLag) + "   (the generator's own delay)")
        }
        if shards.answersWithStatus > 0 {
            let generations = shards.generations.sorted { $0.key < $1.key }.map { "\($0.key) (\($0.value))" }.joined(separator: ", ")
            var line = "  shards     \(shards.answersWithStatus) answers with shard status, \(shards.partial) partial; generations \(generations)"
            if !shards.failedShards.isEmpty {
                line += "; failed: " + shards.failedShards.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", ")
            }
            lines.append(line)
        } else {
            lines.append("  shards     no answer carried a shard status (a node answering directly)")
        }
        if connections.lost > 0 {
            lines.append("  connections \(connections.lost) lost, \(connections.reconnects) reconnected")
        }
        lines.append(String(format: "  histogram  log-linear buckets; percentiles within %.2f%% of exact", LatencyHistogram.relativeError * 100))
        return lines.joined(separator: "\n") + "\n"
    }

    private static func row(_ label: String, _ latency: Latency) -> String {
        guard latency.count > 0 else { return column(label, 20) + "  (none)" }
        return column(label, 20) + [latency.p50, latency.p90, latency.p99, latency.p999, latency.max].map { right(format(micros: $0), 10) }.joined()
            + right("\(latency.count)", 10)
    }

    /// A latency in µs, printed like ``formatLatency(nanoseconds:)``.
    static func format(micros: Double) -> String { formatLatency(nanoseconds: UInt64((micros * 1000).rounded())) }

    /// Up to two decimals, no trailing zeros ("50", "0.05", "842.3").
    static func number(_ value: Double) -> String {
        var text = String(format: "%.2f", value)
        while text.contains("."), text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    private static func column(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    private static func right(_ text: String, _ width: Int) -> String {
        text.count >= width ? " " + text : String(repeating: " ", count: width - text.count) + text
    }
}
