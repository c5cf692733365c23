/// Collects latencies (nanoseconds) and reports percentiles. Keeps every sample: benchmark runs are
/// bounded, and exact percentiles beat bucketed ones for small tails.
public struct LatencyRecorder: Sendable {
    public private(set) var samples: [UInt64] = []
    private var sorted = true

    public init() {}

    public mutating func record(_ nanoseconds: UInt64) {
        samples.append(nanoseconds)
        sorted = false
    }

    public var count: Int { samples.count }

    /// The value at quantile q (0...1), nearest rank.
    public mutating func percentile(_ q: Double) -> UInt64 {
        guard !samples.isEmpty else { return 0 }
        if !sorted { samples.sort(); sorted = true }
        let rank = Int((q * Double(samples.count)).rounded(.up)) - 1
        return samples[min(max(rank, 0), samples.count - 1)]
    }
}

/// Monotonic time in nanoseconds.
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

#if canImport(Glibc)
import Glibc
#else
import Dispatch
#endif
