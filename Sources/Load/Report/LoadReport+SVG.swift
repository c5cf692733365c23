import Foundation

/// Tick labels: round values, so no decimals ("1 ms", "200 µs", "10 s").
enum LoadAxisLabel {
    static func text(micros: Double) -> String {
        micros >= 1_000_000 ? "\(LoadReport.number(micros / 1_000_000)) s"
            : micros >= 1000 ? "\(LoadReport.number(micros / 1000)) ms" : "\(LoadReport.number(micros)) µs"
    }
}

extension LoadReport {
    /// `latency.svg`: two charts, hand-written SVG (well-formed XML, no script, no external
    /// resources).
    ///
    /// 1. Latency percentiles over time: suggest p50/p90/p99 and search p50/p99 per second of
    ///    intended send time, on a logarithmic axis (seconds without answers leave a gap; the
    ///    graceful stop after the measured window is shaded).
    /// 2. Latency by prefix length: suggest p50/p90/p99 per prefix-length bucket, and search.
    public func svg() -> String {
        var document = SVGDocument(width: 960, height: 760)
        document.text("typeahead load → \(settings.target): \(settings.loop) loop, \(requests.sent) requests, "
                      + "latency from the \(latencyMeasuredFrom)", x: 20, y: 24, size: 15, weight: "bold")
        drawTimeline(into: &document, top: 64, height: 320)
        drawPrefixLengths(into: &document, top: 456, height: 260)
        return document.xml
    }

    private static let colors = (p50: "#2b8cbe", p90: "#f4a700", p99: "#d7301f", search: "#6a3d9a")

    /// A logarithmic latency axis over whole decades (µs), with 2 and 5 marks when it spans few.
    private struct LogAxis {
        let low: Double, high: Double, top: Double, bottom: Double

        init(values: [Double], top: Double, bottom: Double) {
            let positive = values.filter { $0 > 0 }
            let lowest = positive.min() ?? 100, highest = positive.max() ?? 1000
            low = pow(10, floor(log10(max(lowest, 0.1))))
            high = max(pow(10, ceil(log10(max(highest, 0.1)))), low * 10)
            self.top = top
            self.bottom = bottom
        }

        func y(_ micros: Double) -> Double {
            let clamped = min(max(micros, low), high)
            return bottom - (log10(clamped) - log10(low)) / (log10(high) - log10(low)) * (bottom - top)
        }

        var ticks: [Double] {
            var ticks: [Double] = []
            var decade = low
            let fine = log10(high / low) <= 2
            while decade <= high * 1.0001 {
                ticks.append(decade)
                if fine && decade * 2 < high { ticks += [decade * 2, decade * 5] }
                decade *= 10
            }
            return ticks.filter { $0 <= high * 1.0001 }
        }

        func draw(into document: inout SVGDocument, left: Double, right: Double) {
            for tick in ticks {
                let isDecade = abs(log10(tick) - log10(tick).rounded()) < 1e-9
                document.line(x1: left, y1: y(tick), x2: right, y2: y(tick), stroke: isDecade ? "#d0d0d0" : "#eeeeee")
                document.text(LoadAxisLabel.text(micros: tick), x: left - 6, y: y(tick) + 4, size: 11, anchor: "end", fill: "#555")
            }
            document.line(x1: left, y1: top, x2: left, y2: bottom, stroke: "#888")
            document.line(x1: left, y1: bottom, x2: right, y2: bottom, stroke: "#888")
        }
    }

    private func drawTimeline(into document: inout SVGDocument, top: Double, height: Double) {
        let left = 90.0, right = 780.0, bottom = top + height
        document.text("Latency percentiles over time (per second)", x: left, y: top - 8, size: 13, weight: "bold")
        let series: [(String, String, String?, (Second) -> Latency, (Latency) -> Double)] = [
            ("suggest p50", Self.colors.p50, nil, { $0.suggest }, { $0.p50 }),
            ("suggest p90", Self.colors.p90, nil, { $0.suggest }, { $0.p90 }),
            ("suggest p99", Self.colors.p99, nil, { $0.suggest }, { $0.p99 }),
            ("search p50", Self.colors.search, "5,3", { $0.search }, { $0.p50 }),
            ("search p99", Self.colors.search, "1,3", { $0.search }, { $0.p99 }),
        ]
        let values = timeline.flatMap { second in series.compactMap { $0.3(second).count > 0 ? $0.4($0.3(second)) : nil } }
        guard !values.isEmpty else {
            document.text("no answered requests", x: (left + right) / 2, y: top + height / 2, anchor: "middle", fill: "#888")
            return
        }
        let seconds = max(1, timeline.count - 1)
        func x(_ second: Int) -> Double { left + Double(second) / Double(seconds) * (right - left) }
        // Requests intended after the window are the graceful stop's tail: fewer, and not at the rate.
        let windowEnd = left + min(1, windowSeconds / Double(seconds)) * (right - left)
        if windowEnd < right {
            document.rect(x: windowEnd, y: top, width: right - windowEnd, height: bottom - top, fill: "#f3f3f3",
                          title: "after the measured window: sessions finishing (graceful stop)")
            document.text("graceful stop", x: (windowEnd + right) / 2, y: top + 12, size: 10, anchor: "middle", fill: "#888")
        }
        let axis = LogAxis(values: values, top: top, bottom: bottom)
        axis.draw(into: &document, left: left, right: right)
        let step = max(1, Int((Double(seconds) / 10).rounded(.up)))
        for second in stride(from: 0, through: seconds, by: step) {
            document.line(x1: x(second), y1: bottom, x2: x(second), y2: bottom + 4, stroke: "#888")
            document.text("\(second) s", x: x(second), y: bottom + 16, size: 11, anchor: "middle", fill: "#555")
        }
        document.text("seconds since the warmup ended, by intended send time", x: (left + right) / 2, y: bottom + 32, size: 11,
                      anchor: "middle", fill: "#555")
        for (index, (name, color, dash, latency, value)) in series.enumerated() {
            // One polyline per run of seconds that have answers; a lone second is a dot.
            var run: [(Double, Double)] = []
            func flush() {
                if run.count == 1 { document.circle(x: run[0].0, y: run[0].1, radius: 2, fill: color) }
                document.polyline(run, stroke: color, dash: dash)
                run = []
            }
            for second in timeline {
                let measured = latency(second)
                if measured.count > 0 { run.append((x(second.second), axis.y(value(measured)))) } else { flush() }
            }
            flush()
            let legendY = top + 10 + Double(index) * 18
            document.line(x1: right + 20, y1: legendY, x2: right + 44, y2: legendY, stroke: color, width: 2, dash: dash)
            document.text(name, x: right + 50, y: legendY + 4, size: 11)
        }
    }

    private func drawPrefixLengths(into document: inout SVGDocument, top: Double, height: Double) {
        let left = 90.0, right = 780.0, bottom = top + height
        document.text("Latency by prefix length (characters typed)", x: left, y: top - 8, size: 13, weight: "bold")
        var groups = prefixLengths.map { ($0.characters, $0.latency) }
        groups.append(("search", search.latency))
        let values = groups.filter { $0.1.count > 0 }.flatMap { [$0.1.p50, $0.1.p90, $0.1.p99] }
        guard !values.isEmpty else {
            document.text("no answered requests", x: (left + right) / 2, y: top + height / 2, anchor: "middle", fill: "#888")
            return
        }
        let axis = LogAxis(values: values, top: top, bottom: bottom)
        axis.draw(into: &document, left: left, right: right)
        let slot = (right - left) / Double(groups.count)
        let bar = slot * 0.8 / 3
        let bars = [("p50", Self.colors.p50, \Latency.p50), ("p90", Self.colors.p90, \Latency.p90), ("p99", Self.colors.p99, \Latency.p99)]
        for (index, (label, latency)) in groups.enumerated() {
            let start = left + Double(index) * slot + slot * 0.1
            if latency.count > 0 {
                for (offset, (name, color, path)) in bars.enumerated() {
                    let y = axis.y(latency[keyPath: path])
                    document.rect(x: start + Double(offset) * bar, y: y, width: bar - 1, height: bottom - y, fill: color,
                                  title: "\(label): \(name) \(Self.format(micros: latency[keyPath: path])) (n=\(latency.count))")
                }
            } else {
                document.text("–", x: start + slot * 0.4, y: bottom - 6, size: 11, anchor: "middle", fill: "#888")
            }
            document.text(label, x: start + slot * 0.4, y: bottom + 16, size: 11, anchor: "middle", fill: "#555")
            document.text("n=\(latency.count)", x: start + slot * 0.4, y: bottom + 30, size: 9, anchor: "middle", fill: "#888")
        }
        for (index, (name, color, _)) in bars.enumerated() {
            let legendY = top + 10 + Double(index) * 18
            document.rect(x: right + 20, y: legendY - 6, width: 24, height: 10, fill: color)
            document.text(name, x: right + 50, y: legendY + 4, size: 11)
        }
    }
}
