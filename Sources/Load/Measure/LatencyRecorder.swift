import Foundation
#if canImport(Glibc)
import Glibc
#else
import Dispatch
#endif

/// Collects latencies (nanoseconds) and reports exact percentiles. Keeps every sample: benchmark
/// runs are bounded, and exact percentiles beat bucketed ones for small tails. For long or
/// concurrent runs use ``LatencyHistogram`` (bounded memory, mergeable, bounded relative error);
/// the tests measure the histogram against this recorder.
///
/// Memory: 8 bytes per sample. ``percentile(_:)`` sorts once after new samples: O(n log n).
///
/// ```swift
/// var latencies = LatencyRecorder()
/// let start = monotonicNanoseconds()
/// _ = try shard.suggest(request)
/// latencies.record(monotonicNanoseconds() - start)
/// print(latencies.percentile(0.99))
/// ```
public struct LatencyRecorder: Sendable {
    public private(set) var samples: [UInt64] = []
    private var sorted = true

    public init() {}

    public mutating func record(_ nanoseconds: UInt64) {
        samples.append(nanoseconds)
        sorted = false
    }

    public var count: Int { samples.count }

    /// The value at quantile q (0...1), nearest rank (see ``Percentile/rank(_:count:)``).
    public mutating func percentile(_ q: Double) -> UInt64 {
        guard !samples.isEmpty else { return 0 }
        if !sorted { samples.sort(); sorted = true }
        return samples[Percentile.rank(q, count: samples.count) - 1]
    }
}

/// The one definition of "the q-th percentile" that the recorder and the histogram share, so that
/// an exact and a bucketed percentile of the same samples name the same sample.
///
/// ```swift
/// Percentile.rank(0.99, count: 1000)   // 990: the 990th smallest of 1000 samples is the p99
/// Percentile.rank(0.5, count: 3)       // 2
/// ```
public enum Percentile {
    /// The nearest-rank definition: the smallest sample with at least q·n samples at or below it,
    /// as a 1-based rank in 1...count (count > 0). q = 0 gives the minimum, q = 1 the maximum.
    public static func rank(_ q: Double, count: Int) -> Int {
        let rank = Int((q * Double(count)).rounded(.up))
        return min(max(rank, 1), count)
    }
}

/// How latencies are printed: three significant figures in the unit that fits.
///
/// ```swift
/// formatLatency(nanoseconds: 8_120)          // "8.12 µs"
/// formatLatency(nanoseconds: 81_200)         // "81.2 µs"
/// formatLatency(nanoseconds: 2_400_000)      // "2.40 ms"
/// formatLatency(nanoseconds: 168_820_000)    // "169 ms"
/// ```
public func formatLatency(nanoseconds: UInt64) -> String {
    let value = Double(nanoseconds)
    let (scaled, unit) = value < 1e3 ? (value, "ns") : value < 1e6 ? (value / 1e3, "µs") : value < 1e9 ? (value / 1e6, "ms") : (value / 1e9, "s")
    if unit == "ns" { return "\(nanoseconds) ns" }
    // Decide the decimals on the rounded value, so 9.996 prints as "10.0", not "10.00".
    let decimals = (scaled * 100).rounded() / 100 < 10 ? 2 : (scaled * 10).rounded() / 10 < 100 ? 1 : 0
    return String(format: "%.\(decimals)f \(unit)", scaled)
}

/// Monotonic time in nanoseconds (CLOCK_MONOTONIC: the clock of every timestamp the load
/// generator compares).
@inline(__always)
public func monotonicNanoseconds() -> UInt64 {
    #if canImport(Glibc)
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    #else
    return DispatchTime.now().uptimeNanoseconds
    #endif
}
