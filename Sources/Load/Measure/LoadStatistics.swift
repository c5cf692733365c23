import RPC
import Wire

/// Prefix-length classes of keystrokes: short prefixes are the expensive ones (most candidates),
/// so the report breaks suggest latency down by them. Lengths count characters of the field text.
enum PrefixLengthBucket: Int, Sendable, CaseIterable, Hashable {
    case empty, one, two, three, fourToFive, sixToEight, nineToTwelve, thirteenOrMore

    init(length: Int) {
        switch length {
        case ...0: self = .empty
        case 1: self = .one
        case 2: self = .two
        case 3: self = .three
        case 4...5: self = .fourToFive
        case 6...8: self = .sixToEight
        case 9...12: self = .nineToTwelve
        default: self = .thirteenOrMore
        }
    }

    /// "1", "4-5", "13+".
    var label: String {
        switch self {
        case .empty: "0"
        case .one: "1"
        case .two: "2"
        case .three: "3"
        case .fourToFive: "4-5"
        case .sixToEight: "6-8"
        case .nineToTwelve: "9-12"
        case .thirteenOrMore: "13+"
        }
    }
}

/// What happened to one kind of request (suggest or search).
struct KindStatistics: Sendable, Equatable {
    /// Requests sent (every one completes once: answered, superseded or failed).
    var sent = 0
    /// Answers (status OK), partial ones included.
    var answered = 0
    /// Answers whose `shards` says some shard failed.
    var partial = 0
    /// CANCELLED as superseded by a newer keystroke.
    var superseded = 0
    /// Failures by status (superseded answers are not here).
    var errors: [GRPCStatus.Code: Int] = [:]
    /// The first message seen for each failure status, to tell "connection refused" from "overloaded".
    var errorExamples: [GRPCStatus.Code: String] = [:]
    /// Answers, measured from the intended send time (open loop) — what the person waits.
    var latency = LatencyHistogram()
    /// Answers, measured from the moment the request was handed to its connection.
    var serviceTime = LatencyHistogram()

    init() {}

    var failed: Int { errors.values.reduce(0, +) }

    mutating func record(_ outcome: RequestOutcome, latency: UInt64, serviceTime: UInt64) {
        sent += 1
        switch outcome {
        case .answered(let shards):
            answered += 1
            if let shards, shards.failed > 0 { partial += 1 }
            self.latency.record(latency)
            self.serviceTime.record(serviceTime)
        case .superseded:
            superseded += 1
        case .failed(let status):
            errors[status.code, default: 0] += 1
            if errorExamples[status.code] == nil { errorExamples[status.code] = status.message }
        }
    }

    mutating func merge(_ other: KindStatistics) {
        sent += other.sent
        answered += other.answered
        partial += other.partial
        superseded += other.superseded
        errors.merge(other.errors, uniquingKeysWith: +)
        errorExamples.merge(other.errorExamples) { mine, _ in mine }
        latency.merge(other.latency)
        serviceTime.merge(other.serviceTime)
    }
}

/// Answers that carried a `shards` status (a coordinator's), and which shards failed.
struct ShardStatistics: Sendable, Equatable {
    var answersWithStatus = 0
    /// Answers with at least one failed shard (partial answers).
    var partial = 0
    /// How often each shard was named failed.
    var failedShards: [String: Int] = [:]
    /// Answers per index generation.
    var generations: [UInt64: Int] = [:]

    init() {}

    mutating func record(_ status: Typeahead_V1_ShardStatus) {
        answersWithStatus += 1
        if status.failed > 0 { partial += 1 }
        for shard in status.failedShards { failedShards[shard, default: 0] += 1 }
        generations[status.generation, default: 0] += 1
    }

    mutating func merge(_ other: ShardStatistics) {
        answersWithStatus += other.answersWithStatus
        partial += other.partial
        failedShards.merge(other.failedShards, uniquingKeysWith: +)
        generations.merge(other.generations, uniquingKeysWith: +)
    }
}

/// Sessions (one person typing one text), counted by whoever owns them: the open-loop scheduler
/// or a closed-loop stream.
struct SessionCounts: Sendable, Equatable {
    var started = 0
    /// Typed to the end (and submitted, if they were going to).
    var completed = 0
    /// Ended with a Search.
    var submitted = 0
    /// Still typing when the run ended (the graceful stop ran out, or the closed loop stopped).
    var cut = 0

    init() {}

    mutating func merge(_ other: SessionCounts) {
        started += other.started
        completed += other.completed
        submitted += other.submitted
        cut += other.cut
    }
}

/// One second of the run (by intended send time, from the end of the warmup).
struct SecondStatistics: Sendable, Equatable {
    var sent = 0
    var answered = 0
    var superseded = 0
    var failed = 0
    /// Answers (counted in `answered`) that named a failed shard.
    var partial = 0
    /// Coarse (``precision``): every loop keeps two per second of the run, so at the run
    /// histograms' precision a 30-minute soak's timeline alone held about 80 MiB.
    var suggest = LatencyHistogram(precisionBits: Self.precision)
    var search = LatencyHistogram(precisionBits: Self.precision)

    /// Per-second percentiles are within 2⁻⁴ (6.25%) of exact: enough to draw and to spot a
    /// stall, in about a sixth of the room.
    static let precision = 4

    init() {}

    mutating func merge(_ other: SecondStatistics) {
        sent += other.sent
        answered += other.answered
        partial += other.partial
        superseded += other.superseded
        failed += other.failed
        suggest.merge(other.suggest)
        search.merge(other.search)
    }
}

/// Everything a run measured. Each event loop records into its own (no lock on a request's path);
/// the report merges them with ``merge(_:)``, which is exact.
///
/// ```swift
/// var statistics = LoadStatistics()
/// statistics.record(.suggest, prefixLength: 3, outcome: .answered(shards: nil),
///                   intended: t0, sent: t0 + 40_000, finished: t0 + 900_000, second: 0, inWindow: true)
/// statistics.suggest.latency.percentile(0.99)     // 900 µs
/// ```
struct LoadStatistics: Sendable, Equatable {
    var suggest = KindStatistics()
    var search = KindStatistics()
    /// Suggest answers' latency (from the intended send time) by ``PrefixLengthBucket``.
    var prefixLengths = [LatencyHistogram](repeating: LatencyHistogram(), count: PrefixLengthBucket.allCases.count)
    var sessions = SessionCounts()
    var shards = ShardStatistics()
    /// Per second of intended send time since the warmup ended.
    var timeline: [SecondStatistics] = []
    /// How late requests left relative to their intended time (the generator's own lag: timer
    /// resolution, a busy machine). Large values mean the generator, not the server, was behind.
    var sendLag = LatencyHistogram()
    /// Requests intended within the measured window (the rest were sent in the graceful stop).
    var sentInWindow = 0

    init() {}

    subscript(kind: RequestKind) -> KindStatistics { kind == .suggest ? suggest : search }

    var sent: Int { suggest.sent + search.sent }

    /// Records one finished request. Times are ``monotonicNanoseconds()``; `second` indexes the
    /// timeline; `inWindow` says whether it was intended before the end of the measured window.
    mutating func record(_ kind: RequestKind, prefixLength: Int, outcome: RequestOutcome,
                                intended: UInt64, sent: UInt64, finished: UInt64, second: Int, inWindow: Bool) {
        let latency = finished &- Swift.min(intended, finished)
        if second >= timeline.count { timeline.append(contentsOf: repeatElement(SecondStatistics(), count: second + 1 - timeline.count)) }
        timeline[second].sent += 1
        if inWindow { sentInWindow += 1 }
        sendLag.record(sent &- Swift.min(intended, sent))
        switch outcome {
        case .answered(let shards):
            timeline[second].answered += 1
            if let shards, shards.failed > 0 { timeline[second].partial += 1 }
            if kind == .suggest {
                prefixLengths[PrefixLengthBucket(length: prefixLength).rawValue].record(latency)
                timeline[second].suggest.record(latency)
            } else {
                timeline[second].search.record(latency)
            }
            if let shards { self.shards.record(shards) }
        case .superseded:
            timeline[second].superseded += 1
        case .failed:
            timeline[second].failed += 1
        }
        // In place: going through the get/set subscript would copy the histograms' storage.
        if kind == .suggest {
            suggest.record(outcome, latency: latency, serviceTime: finished &- Swift.min(sent, finished))
        } else {
            search.record(outcome, latency: latency, serviceTime: finished &- Swift.min(sent, finished))
        }
    }

    /// Adds `other` (another loop's share, or the sessions counted elsewhere).
    mutating func merge(_ other: LoadStatistics) {
        suggest.merge(other.suggest)
        search.merge(other.search)
        for index in prefixLengths.indices { prefixLengths[index].merge(other.prefixLengths[index]) }
        sessions.merge(other.sessions)
        shards.merge(other.shards)
        if other.timeline.count > timeline.count {
            timeline.append(contentsOf: repeatElement(SecondStatistics(), count: other.timeline.count - timeline.count))
        }
        for (second, value) in other.timeline.enumerated() { timeline[second].merge(value) }
        sendLag.merge(other.sendLag)
        sentInWindow += other.sentInWindow
    }
}
