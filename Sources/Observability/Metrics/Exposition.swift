/// Renders families in the Prometheus text format 0.0.4 and checks names.
///
/// The format, as far as it matters here: `# HELP name text` (text escapes `\` and newline),
/// `# TYPE name counter|gauge|histogram`, then `name{label="value",…} number` per line, label
/// values escaping `\`, `"` and newline. Numbers as Go prints them: integers without a fraction,
/// `+Inf`, `-Inf`, `NaN`. Every line ends with `\n`, the last one included.
enum Exposition {
    static func append(name: String, family: MetricsRegistry.Family, to out: inout String) {
        switch family {
        case .counter(let counter):
            let series = counter.table.snapshot()
            guard !series.isEmpty else { return }
            appendHeader(name: name, help: counter.help, type: "counter", to: &out)
            for (values, s) in series {
                appendSample(name, counter.labelNames, values, String(s.value), to: &out)
            }
        case .gauge(let gauge):
            let series = gauge.table.snapshot()
            guard !series.isEmpty else { return }
            appendHeader(name: name, help: gauge.help, type: "gauge", to: &out)
            for (values, s) in series {
                appendSample(name, gauge.labelNames, values, format(s.value), to: &out)
            }
        case .histogram(let histogram):
            let series = histogram.table.snapshot()
            guard !series.isEmpty else { return }
            appendHeader(name: name, help: histogram.help, type: "histogram", to: &out)
            let bucketLabels = histogram.labelNames + ["le"]
            let bounds = histogram.buckets.map(format) + ["+Inf"]
            for (values, s) in series {
                // Read the counters once, and derive `_count` from them, so that the +Inf bucket
                // and `_count` agree even while observations race with the scrape.
                let cumulative = s.cumulativeCounts
                for (bound, count) in zip(bounds, cumulative) {
                    appendSample(name + "_bucket", bucketLabels, values + [bound], String(count), to: &out)
                }
                appendSample(name + "_sum", histogram.labelNames, values, format(s.sum), to: &out)
                appendSample(name + "_count", histogram.labelNames, values, String(cumulative.last!), to: &out)
            }
        case .callback(let help, let type, let labelNames, let read):
            let series = read()
            guard !series.isEmpty else { return }
            appendHeader(name: name, help: help, type: type.rawValue, to: &out)
            for sample in series {
                precondition(sample.labelValues.count == labelNames.count,
                             "metric \(name): \(sample.labelValues.count) label values for \(labelNames.count) labels")
                appendSample(name, labelNames, sample.labelValues, format(sample.value), to: &out)
            }
        }
    }

    private static func appendHeader(name: String, help: String, type: String, to out: inout String) {
        out += "# HELP \(name) \(escapeHelp(help))\n# TYPE \(name) \(type)\n"
    }

    private static func appendSample(
        _ name: String, _ labelNames: [String], _ labelValues: [String], _ value: String,
        to out: inout String
    ) {
        out += name
        if !labelNames.isEmpty {
            out += "{"
            for (i, (label, labelValue)) in zip(labelNames, labelValues).enumerated() {
                if i > 0 { out += "," }
                out += "\(label)=\"\(escapeLabelValue(labelValue))\""
            }
            out += "}"
        }
        out += " \(value)\n"
    }

    static func escapeHelp(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0 == "\\" || $0 == "\n" }) else { return text }
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    static func escapeLabelValue(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0 == "\\" || $0 == "\"" || $0 == "\n" }) else { return text }
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// A sample value or bucket bound as Go's `strconv.FormatFloat(v, 'g', -1, 64)` would mostly
    /// write it: whole numbers without `.0`, `+Inf`/`-Inf`/`NaN`, otherwise Swift's shortest
    /// round-tripping form (`0.25`, `5e-05`), which Prometheus parses the same way.
    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value == .infinity { return "+Inf" }
        if value == -.infinity { return "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return value.description
    }

    static func isValidMetricName(_ name: String) -> Bool {
        guard let first = name.utf8.first, !isDigit(first) else { return false }
        return name.utf8.allSatisfy { isLetter($0) || isDigit($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ":") }
    }

    static func isValidLabelName(_ name: String) -> Bool {
        guard let first = name.utf8.first, !isDigit(first), !name.hasPrefix("__") else { return false }
        return name.utf8.allSatisfy { isLetter($0) || isDigit($0) || $0 == UInt8(ascii: "_") }
    }

    private static func isLetter(_ b: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(b) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(b)
    }

    private static func isDigit(_ b: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b)
    }
}
