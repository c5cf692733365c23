import Foundation
import RPC
import Wire

/// The result of a load run: settings, achieved rates, counts by status, latency percentiles per
/// request kind and per prefix length, per-second percentiles, shard status and the histograms
/// themselves. It is what `report.json` holds (``json()``), and the source of the text summary
/// (``summary()``) and the SVG chart (``svg()``).
///
/// Latencies are in **microseconds**, computed from ``LatencyHistogram`` (within
/// ``LatencyHistogram/relativeError`` of the exact percentiles); histogram buckets in
/// nanoseconds. They cover answered requests (OK, partial ones included): superseded and failed
/// requests are counted, not timed.
///
/// ```swift
/// let report = try await generator.run()
/// print(report.summary())
/// report.suggest.latency.p99            // µs
/// try report.write(to: "/tmp/load-report")   // report.json, latency.svg, summary.txt
/// ```
public struct LoadReport: Sendable, Codable, Equatable {
    /// Percentiles of one latency histogram, in microseconds (0 when `count` is 0).
    public struct Latency: Sendable, Codable, Equatable {
        public var count: UInt64
        public var p50: Double
        public var p90: Double
        public var p99: Double
        public var p999: Double
        public var max: Double
        public var mean: Double

        public init(_ histogram: LatencyHistogram) {
            func micros(_ nanoseconds: UInt64) -> Double { (Double(nanoseconds) / 100).rounded() / 10 }
            count = histogram.count
            p50 = micros(histogram.percentile(0.5))
            p90 = micros(histogram.percentile(0.9))
            p99 = micros(histogram.percentile(0.99))
            p999 = micros(histogram.percentile(0.999))
            max = micros(histogram.maximum)
            mean = (histogram.mean / 100).rounded() / 10
        }
    }

    /// How often one status came back, and one message with it.
    public struct StatusCount: Sendable, Codable, Equatable {
        /// gRPC's name (`DEADLINE_EXCEEDED`); superseded keystrokes are `CANCELLED (superseded)`.
        public var status: String
        public var count: Int
        public var example: String?

        public init(status: String, count: Int, example: String? = nil) {
            self.status = status
            self.count = count
            self.example = example
        }
    }

    /// One request kind (suggest or search).
    public struct Kind: Sendable, Codable, Equatable {
        public var sent: Int
        public var answered: Int
        public var partial: Int
        public var superseded: Int
        public var failed: Int
        public var errors: [StatusCount]
        /// From the intended send time (open loop) or the send (closed loop).
        public var latency: Latency
        /// From the moment the request was handed to its connection.
        public var serviceTime: Latency

        init(_ statistics: KindStatistics) {
            sent = statistics.sent
            answered = statistics.answered
            partial = statistics.partial
            superseded = statistics.superseded
            failed = statistics.failed
            errors = LoadReport.statusCounts(statistics.errors, examples: statistics.errorExamples)
            latency = Latency(statistics.latency)
            serviceTime = Latency(statistics.serviceTime)
        }
    }

    /// Suggest latency for one prefix-length class.
    public struct PrefixLength: Sendable, Codable, Equatable {
        /// "1", "2", "3", "4-5", "6-8", "9-12", "13+" (and "0" after backspacing everything).
        public var characters: String
        public var latency: Latency
    }

    /// One second of the timeline (what the SVG's first chart draws). Its latencies come from
    /// coarser histograms than the run's: within 6.25% of exact (``LatencyHistogram/relativeError``
    /// at 4 bits), where the run's are within 0.78%.
    public struct Second: Sendable, Codable, Equatable {
        /// Seconds since the end of the warmup, by intended send time.
        public var second: Int
        public var sent: Int
        public var answered: Int
        public var superseded: Int
        public var failed: Int
        /// Answers of this second (in `answered`) that named a failed shard.
        public var partial: Int
        public var suggest: Latency
        public var search: Latency
    }

    /// What the answers' `shards` status said (a coordinator's answers carry one).
    public struct Shards: Sendable, Codable, Equatable {
        /// Answers that carried a `shards` status (a coordinator's; a node answers without one).
        public var answersWithStatus: Int
        /// Of those, answers with failed shards.
        public var partial: Int
        /// Shard name → answers that named it failed.
        public var failedShards: [String: Int]
        /// Index generation → answers read from it.
        public var generations: [String: Int]
    }

    /// Sessions of the measured window (started after the warmup).
    public struct Sessions: Sendable, Codable, Equatable {
        public var started: Int
        public var completed: Int
        public var submitted: Int
        public var cut: Int
        /// Started per second of the measured window.
        public var perSecond: Double
    }

    /// Both request kinds together.
    public struct Requests: Sendable, Codable, Equatable {
        public var sent: Int
        /// Requests intended within the measured window, per second of it (the graceful stop's
        /// tail is counted in `sent`, not here).
        public var perSecond: Double
        public var answered: Int
        public var partial: Int
        public var superseded: Int
        public var failed: Int
        /// Every status, OK and superseded included, most frequent first.
        public var byStatus: [StatusCount]
    }

    /// The histograms behind the percentiles: `[lowerNs, upperNs, count]` per non-empty bucket
    /// (bounds inclusive).
    public struct Histograms: Sendable, Codable, Equatable {
        public var layout = "log-linear: values below 128 ns exact, then 64 equal buckets per power of two"
        /// The bound on a percentile's relative error (2^-7).
        public var relativeError = LatencyHistogram.relativeError
        public var suggest: [[UInt64]]
        public var search: [[UInt64]]
    }

    /// What ran: the configuration as the command line would spell it.
    public struct Settings: Sendable, Codable, Equatable {
        public var target: String
        /// "open" or "closed".
        public var loop: String
        /// Open loop: "poisson" or "uniform".
        public var arrivals: String?
        /// Open loop: the session rate aimed at (derived from `targetRequestsPerSecond` if that was given).
        public var targetSessionsPerSecond: Double?
        public var targetRequestsPerSecond: Double?
        public var connections: Int
        /// Closed loop: streams per connection.
        public var streamsPerConnection: Int?
        public var threads: Int
        public var durationSeconds: Double
        public var warmupSeconds: Double
        public var gracefulStopSeconds: Double
        public var timeoutMilliseconds: Double
        public var keyDelayMilliseconds: [Double]
        public var typoRate: Double
        public var backspaceRate: Double
        public var submitRate: Double
        public var maximumLength: Int
        public var seed: UInt64
        /// Where the texts came from, and how many there are.
        public var source: String
        public var texts: Int
        /// The prefix of every session id (and so of every request id) the run sent.
        public var runID: String
    }

    /// Connections that closed during the run, and how many were opened again.
    public struct Connections: Sendable, Codable, Equatable {
        public var lost: Int
        public var reconnects: Int
    }

    public var version = 1
    public var settings: Settings
    /// "intended send time" (open loop) or "send time" (closed loop).
    public var latencyMeasuredFrom: String
    /// The measured window as it ran (shorter than the duration when stopped early).
    public var windowSeconds: Double
    /// From the first request to the last answer.
    public var elapsedSeconds: Double
    /// When the measured window (the timeline's second 0) began, in seconds since 1970: lines a
    /// run's timeline up with what happened to the target meanwhile (`scripts/soak.sh` does).
    public var windowStartUnixSeconds: Double
    public var sessions: Sessions
    public var requests: Requests
    public var suggest: Kind
    public var search: Kind
    /// Suggest latency by the length of the field's text.
    public var prefixLengths: [PrefixLength]
    /// How late requests left against their intended time: the generator's own lag.
    public var sendLag: Latency
    public var shards: Shards
    public var connections: Connections
    public var timeline: [Second]
    public var histograms: Histograms

    /// Builds the report of a finished run.
    init(configuration: LoadConfiguration, source: TextSource, sessionRate: Double?, statistics: LoadStatistics,
                windowSeconds: Double, elapsedSeconds: Double, windowStartUnixSeconds: Double, runID: String,
                connectionsLost: Int = 0, reconnects: Int = 0) {
        let seconds = { (duration: Duration) -> Double in Double(duration.wholeNanoseconds) / 1e9 }
        var settings = Settings(target: "\(configuration.host):\(configuration.port)", loop: "open", connections: configuration.connections,
                                threads: configuration.threads, durationSeconds: seconds(configuration.duration),
                                warmupSeconds: seconds(configuration.warmup), gracefulStopSeconds: seconds(configuration.gracefulStop),
                                timeoutMilliseconds: seconds(configuration.requestTimeout) * 1000,
                                keyDelayMilliseconds: [seconds(configuration.typing.keyDelay.lowerBound) * 1000,
                                                       seconds(configuration.typing.keyDelay.upperBound) * 1000],
                                typoRate: configuration.typing.typoRate, backspaceRate: configuration.typing.backspaceRate,
                                submitRate: configuration.typing.submitRate, maximumLength: configuration.typing.maximumLength,
                                seed: configuration.seed, source: source.origin, texts: source.texts.count, runID: runID)
        switch configuration.mode {
        case .openLoop(let rate, let arrivals):
            settings.arrivals = arrivals.rawValue
            settings.targetSessionsPerSecond = sessionRate.map { ($0 * 1000).rounded() / 1000 }
            if case .requests(let perSecond) = rate { settings.targetRequestsPerSecond = perSecond }
            latencyMeasuredFrom = "intended send time"
        case .closedLoop(let streams):
            settings.loop = "closed"
            settings.streamsPerConnection = streams
            latencyMeasuredFrom = "send time"
        }
        self.settings = settings
        self.windowSeconds = windowSeconds
        self.elapsedSeconds = elapsedSeconds
        self.windowStartUnixSeconds = windowStartUnixSeconds
        let window = Swift.max(windowSeconds, 1e-9)
        let s = statistics.sessions
        sessions = Sessions(started: s.started, completed: s.completed, submitted: s.submitted, cut: s.cut,
                            perSecond: (Double(s.started) / window * 100).rounded() / 100)
        var all = statistics.suggest.errors.merging(statistics.search.errors, uniquingKeysWith: +)
        let examples = statistics.suggest.errorExamples.merging(statistics.search.errorExamples) { first, _ in first }
        let answered = statistics.suggest.answered + statistics.search.answered
        let superseded = statistics.suggest.superseded + statistics.search.superseded
        var byStatus = Self.statusCounts(all, examples: examples)
        if superseded > 0 { byStatus.insert(StatusCount(status: "CANCELLED (superseded)", count: superseded), at: 0) }
        if answered > 0 { byStatus.insert(StatusCount(status: "OK", count: answered), at: 0) }
        byStatus.sort { $0.count > $1.count }
        all[.ok] = nil
        requests = Requests(sent: statistics.sent, perSecond: (Double(statistics.sentInWindow) / window * 10).rounded() / 10,
                            answered: answered, partial: statistics.suggest.partial + statistics.search.partial,
                            superseded: superseded, failed: all.values.reduce(0, +), byStatus: byStatus)
        suggest = Kind(statistics.suggest)
        search = Kind(statistics.search)
        prefixLengths = PrefixLengthBucket.allCases.compactMap { bucket in
            let histogram = statistics.prefixLengths[bucket.rawValue]
            // "0" only appears when someone backspaced the whole text.
            if bucket == .empty && histogram.isEmpty { return nil }
            return PrefixLength(characters: bucket.label, latency: Latency(histogram))
        }
        sendLag = Latency(statistics.sendLag)
        shards = Shards(answersWithStatus: statistics.shards.answersWithStatus, partial: statistics.shards.partial,
                        failedShards: statistics.shards.failedShards,
                        generations: Dictionary(uniqueKeysWithValues: statistics.shards.generations.map { ("\($0.key)", $0.value) }))
        connections = Connections(lost: connectionsLost, reconnects: reconnects)
        timeline = statistics.timeline.enumerated().map { second, value in
            Second(second: second, sent: value.sent, answered: value.answered, superseded: value.superseded, failed: value.failed,
                   partial: value.partial, suggest: Latency(value.suggest), search: Latency(value.search))
        }
        let buckets = { (histogram: LatencyHistogram) in histogram.buckets.map { [$0.lower, $0.upper, $0.count] } }
        histograms = Histograms(suggest: buckets(statistics.suggest.latency), search: buckets(statistics.search.latency))
    }

    static func statusCounts(_ counts: [GRPCStatus.Code: Int], examples: [GRPCStatus.Code: String]) -> [StatusCount] {
        counts.filter { $0.value > 0 }
            .map { StatusCount(status: $0.key.name, count: $0.value, example: examples[$0.key]) }
            .sorted { ($0.count, $1.status) > ($1.count, $0.status) }
    }

    /// `report.json`: pretty-printed, keys sorted (so two reports diff cleanly).
    public func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Encoding plain structs of numbers and strings cannot fail.
        let data = (try? encoder.encode(self)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
