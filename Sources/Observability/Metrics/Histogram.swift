import Synchronization

/// A Prometheus histogram family: observations counted into fixed buckets, plus their sum.
///
/// Bucket upper bounds are fixed when the family is registered (strictly increasing, finite; the
/// `+Inf` bucket is implicit). A series keeps one atomic counter per bucket — *not* cumulative,
/// so an observation touches one counter — and the exposition accumulates them. The sum is a
/// `Double` updated by compare-exchange on its bit pattern; `_count` is the total of the buckets,
/// so it always equals the `+Inf` bucket. An observation is `v ≤ bound` for the first bucket it
/// fits; NaN lands in `+Inf` only.
///
/// Cost of `Series.observe(_:)`: O(b) comparisons for b buckets (17 by default; a
/// linear scan beats a binary search at this size), one atomic add, one compare-exchange loop.
///
/// ```swift
/// let latency = registry.histogram(name: "typeahead_request_duration_seconds",
///                                  help: "Request latency.", labelNames: ["method"])
/// let suggest = latency.labels(["method": "Suggest"])
/// suggest.observe(.milliseconds(3))
/// ```
public final class Histogram: Sendable {
    /// Request latency in seconds, 50 µs to 10 s, about three buckets per decade.
    public static let defaultLatencyBuckets: [Double] = [
        0.000_05, 0.000_1, 0.000_25, 0.000_5,
        0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05,
        0.1, 0.25, 0.5, 1, 2.5, 5, 10,
    ]

    /// One time series of a histogram.
    ///
    /// `@unchecked Sendable`: the bucket counters live in a buffer this object allocates once in
    /// `init`, never reassigns and frees in `deinit`; every access to it is atomic.
    public final class Series: @unchecked Sendable {
        private let upperBounds: [Double]
        /// `upperBounds.count + 1` counters; the last one is `+Inf`.
        private let counts: UnsafeMutablePointer<Atomic<UInt64>>
        private let sumBits = Atomic<UInt64>(0.0.bitPattern)

        init(upperBounds: [Double]) {
            self.upperBounds = upperBounds
            self.counts = .allocate(capacity: upperBounds.count + 1)
            for i in 0...upperBounds.count {
                (counts + i).initialize(to: Atomic(0))
            }
        }

        deinit {
            counts.deinitialize(count: upperBounds.count + 1)
            counts.deallocate()
        }

        /// Records one observation of `value` (seconds, for latency histograms). Lock-free.
        public func observe(_ value: Double) {
            var bucket = 0
            // `!(value <= bound)` rather than `value > bound`, so that NaN goes to +Inf.
            while bucket < upperBounds.count && !(value <= upperBounds[bucket]) {
                bucket += 1
            }
            counts[bucket].wrappingAdd(1, ordering: .relaxed)
            var old = sumBits.load(ordering: .relaxed)
            while true {
                let new = (Double(bitPattern: old) + value).bitPattern
                let (exchanged, current) = sumBits.weakCompareExchange(
                    expected: old, desired: new, ordering: .relaxed)
                if exchanged { return }
                old = current
            }
        }

        /// Records one observation of `duration`, in seconds.
        public func observe(_ duration: Duration) {
            let (seconds, attoseconds) = duration.components
            // Divide (not multiply by 1e-18, which is inexact) so .milliseconds(5) is exactly 0.005.
            observe(Double(seconds) + Double(attoseconds) / 1e18)
        }

        /// The number of observations.
        public var count: UInt64 {
            (0...upperBounds.count).reduce(0) { $0 &+ counts[$1].load(ordering: .relaxed) }
        }

        /// The sum of all observations.
        public var sum: Double { Double(bitPattern: sumBits.load(ordering: .relaxed)) }

        /// Cumulative counts, one per bound and then `+Inf` (which equals ``count``).
        public var cumulativeCounts: [UInt64] {
            var running: UInt64 = 0
            return (0...upperBounds.count).map { i in
                running &+= counts[i].load(ordering: .relaxed)
                return running
            }
        }
    }

    /// The metric name, e.g. `typeahead_request_duration_seconds`.
    public let name: String
    /// The `# HELP` text.
    public let help: String
    /// The label names, in the order the exposition writes them (`le` comes last).
    public var labelNames: [String] { table.labelNames }
    /// The finite bucket upper bounds, strictly increasing; `+Inf` is implicit.
    public let buckets: [Double]

    let table: SeriesTable<Series>

    init(name: String, help: String, labelNames: [String], buckets: [Double]) {
        precondition(!buckets.isEmpty && buckets.allSatisfy(\.isFinite)
            && zip(buckets, buckets.dropFirst()).allSatisfy { $0 < $1 },
            "histogram \(name): buckets must be finite and strictly increasing, got \(buckets)")
        self.name = name
        self.help = help
        self.buckets = buckets
        self.table = SeriesTable(metricName: name, labelNames: labelNames) { Series(upperBounds: buckets) }
    }

    /// The series for `labels`, which must name every label of the family and nothing else.
    /// Created on first use; O(labels) plus a hash lookup under this family's mutex.
    public func labels(_ labels: [String: String]) -> Series {
        table.series(for: labels)
    }

    /// Records `value` in an unlabelled histogram (traps if the family has labels).
    public func observe(_ value: Double) { table.onlySeries().observe(value) }

    /// Records `duration` in seconds in an unlabelled histogram (traps if the family has labels).
    public func observe(_ duration: Duration) { table.onlySeries().observe(duration) }
}
